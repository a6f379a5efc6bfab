import Benchmark
import BenchmarkSupport

// Suite 7, Graph: a service graph built and read once. An app provides three values (an
// endpoint, a log level, a timeout); ten features each override one of them; a hundred services
// are each built from all three, so every feature needs all hundred built on its own values:
// 1,000 builds per iteration, each service read once where it was built. Every iteration starts
// from nothing, so nothing built in one is reused in the next.
//
// The same graph four ways: Milieu's derived values, under fresh nodes; by hand, the floor;
// swift-dependencies, each service a `DependencyKey` built from three `@Dependency` reads under
// the feature's `withDependencies`; Swinject, a container per feature with the three values and
// the hundred services registered, each service in the container scope.

let benchmarks: @Sendable () -> Void = {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.timing, timeUnits: .microseconds, scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 1_000)

  Benchmark("Graph: by hand, 10 features × 100 services", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(GraphCase.byHand()) }
  }
  Benchmark("Graph: Milieu, 10 features × 100 derived services", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(GraphCase.milieu()) }
  }
  Benchmark(
    "Graph: swift-dependencies, 10 features × 100 services", configuration: configuration
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(GraphCase.swiftDependencies()) }
  }
  Benchmark("Graph: Swinject, 10 features × 100 services", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(GraphCase.swinject()) }
  }
}
