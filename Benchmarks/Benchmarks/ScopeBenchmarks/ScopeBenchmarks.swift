import Benchmark
import BenchmarkSupport
import Dependencies
import Milieu

// Suite 2, Scope: what it costs to open a scope with one value overridden and read it there.
//
// Each inner iteration overrides the value with the iteration number, so no two scopes are
// alike and nothing can be computed once and reused, then reads it back and hands it to
// `blackHole`.

let benchmarks: @Sendable () -> Void = {
  registerScopes()
  registerARCCounts()
}

func scopeConfiguration() -> Benchmark.Configuration {
  .init(
    metrics: SuiteMetrics.timing, scalingFactor: .kilo, maxDuration: .seconds(2),
    maxIterations: 10_000)
}

func registerScopes() {
  let parent = EnvironmentNode("scope-parent")
  Benchmark("Scope: child node with one override, then a read", configuration: scopeConfiguration())
  { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.childThenRead(of: parent, retries: iteration))
    }
  }

  // The first read of a derived value whose build only copies the overridden value: the child
  // sets a new slot, so the value is built and kept there on every iteration. Less the case
  // above, it is what a first read costs beyond the build itself.
  Benchmark(
    "Scope: child node with one override, then a first read of a derived value",
    configuration: scopeConfiguration()
  ) { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.childThenDerivedRead(of: parent, retries: iteration))
    }
  }

  Benchmark(
    "Scope: child node with one override, withCurrent, then an @Environment read",
    configuration: scopeConfiguration()
  ) { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.childThenEnvironmentRead(of: parent, retries: iteration))
    }
  }

  Benchmark(
    "Scope: withDependencies override, then a @Dependency read", configuration: scopeConfiguration()
  ) { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.withDependenciesThenRead(retries: iteration))
    }
  }

  Benchmark("Scope: TaskLocal withValue, then a read", configuration: scopeConfiguration()) {
    benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.taskLocalThenRead(retries: iteration))
    }
  }

  // Asynchronous scopes opened on the main actor: a scope that left the actor to run its body
  // would pay two executor hops for each.
  Benchmark(
    "Scope: async, on the main actor: child node, withCurrent, then an @Environment read",
    configuration: scopeConfiguration()
  ) { benchmark in
    await ScopeCase.asyncScopesOnTheMainActor(
      below: parent, iterations: benchmark.scaledIterations.count)
  }
  Benchmark(
    "Scope: async, on the main actor: TaskLocal withValue, then a read",
    configuration: scopeConfiguration()
  ) { benchmark in
    await ScopeCase.asyncTaskLocalsOnTheMainActor(iterations: benchmark.scaledIterations.count)
  }
}

/// Retain and release counts per scope, apart from the timed cases because counting slows every
/// retain and release.
func registerARCCounts() {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.arc, scalingFactor: .kilo, maxDuration: .seconds(1), maxIterations: 100)
  let parent = EnvironmentNode("scope-parent")

  Benchmark("ARC: Scope: child node with one override, then a read", configuration: configuration) {
    benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.childThenRead(of: parent, retries: iteration))
    }
  }
  Benchmark(
    "ARC: Scope: child node with one override, then a first read of a derived value",
    configuration: configuration
  ) { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.childThenDerivedRead(of: parent, retries: iteration))
    }
  }
  Benchmark(
    "ARC: Scope: withDependencies override, then a @Dependency read", configuration: configuration
  ) { benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.withDependenciesThenRead(retries: iteration))
    }
  }
  Benchmark("ARC: Scope: TaskLocal withValue, then a read", configuration: configuration) {
    benchmark in
    for iteration in benchmark.scaledIterations {
      blackHole(ScopeCase.taskLocalThenRead(retries: iteration))
    }
  }
}
