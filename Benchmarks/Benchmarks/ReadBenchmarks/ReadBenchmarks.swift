import Benchmark
import BenchmarkSupport
import Dependencies
import Milieu
import Swinject

// Suite 1, Read: what one read costs, from the floor (a stored property) through
// `EnvironmentValues` and `@Environment` at growing depths, to swift-dependencies and Swinject;
// and a derived service, once built, beside a plain entry holding a service of the same type.
// The `@Environment` cases read through a struct service; one case reads through a final class,
// to show what keeping the wrapper in a class's stored `var` costs its owner.
//
// Every case reads once per inner iteration and hands the value to `blackHole`, an opaque call
// the optimizer must assume reads and writes memory: so each value is loaded again on every
// iteration, and no case can be folded away. Fixtures are built once, before any measurement.

let benchmarks: @Sendable () -> Void = {
  registerMilieuReads()
  registerAnchorReads()
  registerDerivedReads()
  registerThreadScaling()
  registerARCCounts()
}

/// The depths at which `@Environment` is read (nodes between the reader and the node that set
/// the value), with the spelling benchmark names use.
let readDepths = [(1, "1"), (10, "10"), (100, "100"), (1_000, "1,000"), (10_000, "10,000")]

/// Reads per sample: enough that a sample lasts microseconds at least, so that the clock's own
/// cost is lost in it. The floor takes a million; `compare.sh` divides by the scaling factor.
func readConfiguration(_ scalingFactor: BenchmarkScalingFactor) -> Benchmark.Configuration {
  .init(
    metrics: SuiteMetrics.timing, scalingFactor: scalingFactor,
    maxDuration: .seconds(2), maxIterations: 10_000)
}

func registerMilieuReads() {
  let floor = StoredRetries()
  Benchmark("Read: stored property of a final class", configuration: readConfiguration(.mega)) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(floor.retries) }
  }

  let values = EnvironmentValues.withRetriesSet()
  Benchmark("Read: EnvironmentValues", configuration: readConfiguration(.kilo)) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(values.retries) }
  }
  Benchmark("Read: EnvironmentValues, EnvironmentKey form", configuration: readConfiguration(.kilo))
  { benchmark in
    for _ in benchmark.scaledIterations { blackHole(values.retryLimit) }
  }

  // The primary cases: a struct service, as SwiftUI-style code holds its environment.
  for (depth, spelled) in readDepths {
    let service = EnvironmentService.bound(atDepth: depth)
    Benchmark("Read: @Environment at depth \(spelled)", configuration: readConfiguration(.kilo)) {
      benchmark in
      for _ in benchmark.scaledIterations { blackHole(service.retries) }
    }
  }

  // The same read through a final class: the difference is what the client's class costs (see
  // `EnvironmentClassService`), not Milieu.
  let classService = EnvironmentClassService.bound(atDepth: 1)
  Benchmark(
    "Read: @Environment at depth 1, service a final class", configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(classService.retries) }
  }

  // A class instance is not plain bits: the wrapper caches it under its spin lock instead of in
  // two atomics, and a read retains it. Its floor is a class instance in a stored property.
  let storedGreeter = StoredGreeter()
  Benchmark(
    "Read: class instance in a stored property of a final class",
    configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(storedGreeter.greeter) }
  }
  let greeterService = EnvironmentGreeterService.bound()
  Benchmark(
    "Read: @Environment at depth 1, a class instance", configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(greeterService.greeter) }
  }
}

func registerAnchorReads() {
  let dependencyService = DependencyService.overridden()
  Benchmark("Read: @Dependency (swift-dependencies)", configuration: readConfiguration(.kilo)) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(dependencyService.retries) }
  }

  let root = SwinjectFixture.root()
  Benchmark("Read: Swinject resolve at the root", configuration: readConfiguration(.kilo)) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(root.resolve(RetryPolicy.self)) }
  }

  let deep = SwinjectFixture.child(of: root, depth: 10)
  Benchmark(
    "Read: Swinject resolve through 10 child containers", configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(deep.resolve(RetryPolicy.self)) }
  }
}

/// A derived service read once built, beside a plain entry holding a service of the same type,
/// both one level below the node that sets them or their inputs; through `@Environment`, as
/// services read, and through `EnvironmentValues` made once, where the derived read runs its
/// lookup every time instead of reading a wrapper's cache.
func registerDerivedReads() {
  let node = EnvironmentNode.derivedChain()
  let plainService = PlainRepositoryService.bound(to: node)
  Benchmark(
    "Read: @Environment at depth 1, a plain entry holding a service",
    configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(plainService.repository) }
  }
  let derivedService = DerivedRepositoryService.bound(to: node)
  Benchmark(
    "Read: @Environment at depth 1, a derived service, built",
    configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(derivedService.repository) }
  }

  let values = node.values
  Benchmark(
    "Read: EnvironmentValues, a plain entry holding a service",
    configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(values.plainRepository) }
  }
  Benchmark(
    "Read: EnvironmentValues, a derived service, built", configuration: readConfiguration(.kilo)
  ) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(values.repository) }
  }
}

/// Retain and release counts per read, apart from the timed cases because counting slows every
/// retain and release.
func registerARCCounts() {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.arc, scalingFactor: .kilo, maxDuration: .seconds(1), maxIterations: 100)

  let floor = StoredRetries()
  Benchmark("ARC: Read: stored property of a final class", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(floor.retries) }
  }
  let values = EnvironmentValues.withRetriesSet()
  Benchmark("ARC: Read: EnvironmentValues", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(values.retries) }
  }
  for (depth, spelled) in readDepths where depth == 1 || depth == 10_000 {
    let service = EnvironmentService.bound(atDepth: depth)
    Benchmark("ARC: Read: @Environment at depth \(spelled)", configuration: configuration) {
      benchmark in
      for _ in benchmark.scaledIterations { blackHole(service.retries) }
    }
  }
  let derivedValues = EnvironmentNode.derivedChain().values
  Benchmark("ARC: Read: EnvironmentValues, a derived service, built", configuration: configuration)
  { benchmark in
    for _ in benchmark.scaledIterations { blackHole(derivedValues.repository) }
  }
  let dependencyService = DependencyService.overridden()
  Benchmark("ARC: Read: @Dependency (swift-dependencies)", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(dependencyService.retries) }
  }
  let root = SwinjectFixture.root()
  Benchmark("ARC: Read: Swinject resolve at the root", configuration: configuration) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(root.resolve(RetryPolicy.self)) }
  }
}
