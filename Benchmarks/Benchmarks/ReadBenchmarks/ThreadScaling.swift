import Benchmark
import BenchmarkSupport
import Milieu

// Reads on two threads at once against the same reads on one, judged against two threads that
// share nothing in the same run: the target is at least 0.95 of what that control reaches.
//
// Each sample makes 20,000,000 `@Environment` reads of a value set one level above the readers'
// node, split evenly between threads made for the sample (see `ThreadWork`): long enough that
// starting the threads is lost in it. Each thread reads through a service of its own, a wrapper
// of its own bound to the same node, and hands each value to `blackHole`, which writes nothing.
// The CPU time of the threads is recorded beside the wall clock: CPU time over wall time is how
// many cores the sample kept busy, so a ratio short of two can be told from a busy machine.

func registerThreadScaling() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, ThreadWork.cpuTime], timeUnits: .microseconds,
    scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 1_000)
  let (first, second) = EnvironmentService.pair()
  let services = [first, second]
  let reads = 20_000_000

  for threads in [1, 2] {
    let spelled = threads == 1 ? "one thread" : "two threads, a service each"
    Benchmark("Read: @Environment, 20,000,000 reads on \(spelled)", configuration: configuration) {
      benchmark in
      ThreadWork.run(benchmark, threads: threads) { thread in
        let service = services[thread]
        for _ in 0..<(reads / threads) { blackHole(service.retries) }
      }
    }
  }
  // The control: two threads that share nothing, each reading a tree of its own. It shows how
  // much of two cores the machine gives at the moment; the target is a fraction of it.
  let separate = [EnvironmentService.pair().0, EnvironmentService.pair().0]
  Benchmark(
    "Read: @Environment, 20,000,000 reads on two threads, a tree each", configuration: configuration
  ) { benchmark in
    ThreadWork.run(benchmark, threads: 2) { thread in
      let service = separate[thread]
      for _ in 0..<(reads / 2) { blackHole(service.retries) }
    }
  }
}
