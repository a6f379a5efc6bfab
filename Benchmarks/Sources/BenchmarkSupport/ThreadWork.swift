import Benchmark
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Work split between threads made for one sample, released together, with the CPU time they
/// spent recorded beside the wall clock.
///
/// Threads of their own rather than tasks: package-benchmark blocks one thread of the
/// cooperative pool while it runs a suite, and on a two-core machine the pool's other thread
/// then ran both halves one after the other. The CPU time tells contention from a busy machine:
/// CPU time divided by wall time is how many cores the sample kept busy.
public enum ThreadWork {
  /// The CPU time the working threads spent in a sample, in nanoseconds, summed over them.
  public static let cpuTime = BenchmarkMetric.custom(
    "CPU time of the working threads (ns)", polarity: .prefersSmaller, useScalingFactor: false)

  /// Runs `body(thread)` on `threads` new threads, started together once all exist; waits for
  /// them and records their CPU time.
  public static func run(
    _ benchmark: Benchmark, threads: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void
  ) {
    let cpu = Atomic<Int>(0)
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    withUnsafePointer(to: cpu) { cpu in
      let cpu = UnsafeSendable(cpu)
      for thread in 0..<threads {
        Thread {
          ready.signal()
          start.wait()
          let before = threadCPUNanoseconds()
          body(thread)
          cpu.value.pointee.add(threadCPUNanoseconds() - before, ordering: .relaxed)
          finished.signal()
        }.start()
      }
      for _ in 0..<threads { ready.wait() }
      benchmark.startMeasurement()
      for _ in 0..<threads { start.signal() }
      for _ in 0..<threads { finished.wait() }
      benchmark.stopMeasurement()
    }
    benchmark.measurement(cpuTime, cpu.load(ordering: .relaxed))
  }

  /// The CPU time the calling thread has used, in nanoseconds.
  static func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
  }
}

/// A pointer handed to the threads, which all finish before the pointee goes away.
private struct UnsafeSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
