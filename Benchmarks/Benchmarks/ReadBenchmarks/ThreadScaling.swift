import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import Milieu
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Reads on two threads at once against the same reads on one: the design asks for at least
// 1.8× the throughput of one thread.
//
// Each sample makes 1,000,000 `@Environment` reads of a value set one level above the readers'
// node, split evenly between threads started for the sample: one thread, or two. Every case
// starts and joins its threads the same way, so the ratio of the one-thread median to a
// two-thread median is the throughput ratio; `compare.sh` computes it.
//
// The readers are threads of their own, not tasks. package-benchmark runs an `async` benchmark
// by blocking the cooperative-pool thread that runs the suite until the benchmark's task ends,
// and on Linux that pool has one thread per core: on this two-core machine, two child tasks of a
// task group ran one after the other on the one pool thread left (a profile showed every read
// on one thread). Threads made for the sample do not depend on the pool.
//
// Two variants on two threads: each thread reads through a service of its own (two wrappers
// bound to the same node), and both threads read through one shared service (one wrapper; each
// thread holds a copy of the struct, and the copies share the wrapper's cache).
//
// Wall clock alone cannot tell contention from a busy machine: on a shared two-core machine the
// second thread may get no core of its own. So each case also records the CPU time its reading
// threads spent (`CLOCK_THREAD_CPUTIME_ID`, summed over the threads): if two threads spend no
// more CPU time per read than one, the reads do not slow each other down, and a throughput short
// of the target comes from the cores the machine had to spare.

func registerThreadScaling() {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.timing + [ThreadReads.cpuTime], scalingFactor: .mega,
    maxDuration: .seconds(3), maxIterations: 1_000)
  let (first, second) = EnvironmentService.pair()

  Benchmark("Read: @Environment, 1,000,000 reads on one thread", configuration: configuration) {
    benchmark in
    ThreadReads.read(benchmark, through: [first])
  }
  Benchmark(
    "Read: @Environment, 1,000,000 reads on two threads, a service each",
    configuration: configuration
  ) { benchmark in
    ThreadReads.read(benchmark, through: [first, second])
  }
  Benchmark(
    "Read: @Environment, 1,000,000 reads on two threads, one shared service",
    configuration: configuration
  ) { benchmark in
    ThreadReads.read(benchmark, through: [first, first])
  }
}

/// Reads split between threads that run at once.
enum ThreadReads {
  /// The CPU time the reading threads spent in a sample, in nanoseconds, summed over them.
  static let cpuTime = BenchmarkMetric.custom(
    "CPU time of the reading threads (ns)", polarity: .prefersSmaller, useScalingFactor: true)

  /// Reads the value `benchmark.scaledIterations.count` times in all, on one new thread per
  /// service, all started together, each reading its share through its service; waits for them
  /// and records their CPU time.
  static func read(_ benchmark: Benchmark, through services: [EnvironmentService]) {
    let share = benchmark.scaledIterations.count / services.count
    let tally = CPUTally()
    let finished = DispatchSemaphore(value: 0)
    let threads = services.map { service in
      Thread {
        let start = threadCPUNanoseconds()
        for _ in 0..<share { blackHole(service.retries) }
        tally.nanoseconds.add(threadCPUNanoseconds() - start, ordering: .relaxed)
        finished.signal()
      }
    }
    for thread in threads { thread.start() }
    for _ in threads { finished.wait() }
    benchmark.measurement(cpuTime, tally.nanoseconds.load(ordering: .relaxed))
  }

  /// The CPU time of a sample's reading threads, summed as each finishes.
  final class CPUTally: Sendable {
    let nanoseconds = Atomic<Int>(0)
  }

  /// The CPU time the calling thread has used, in nanoseconds.
  static func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
  }
}
