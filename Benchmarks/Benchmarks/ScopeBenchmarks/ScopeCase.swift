import Benchmark
import BenchmarkSupport
import Dependencies
import Milieu

/// One scope of each kind: open it with `retries` overridden, read the value, close it.
///
/// Shared by the timed and the ARC-counting benchmarks so that both measure the same code.
enum ScopeCase {
  @TaskLocal static var retries = 3

  /// A child node of `parent` with one override, read through the node's subscript.
  static func childThenRead(of parent: EnvironmentNode, retries: Int) -> Int {
    let child = parent.child { $0.retries = retries }
    return child[\.retries]
  }

  /// The same child, read through a derived value built from the override: its first read,
  /// which builds it and keeps it with the child's slot.
  static func childThenDerivedRead(of parent: EnvironmentNode, retries: Int) -> Int {
    let child = parent.child { $0.retries = retries }
    return child[\.retrySettings].retries
  }

  /// The same child, made current so that a component created there reads it with
  /// `@Environment`: the form application code takes, and the counterpart of `withDependencies`.
  static func childThenEnvironmentRead(of parent: EnvironmentNode, retries: Int) -> Int {
    let child = parent.child { $0.retries = retries }
    return child.withCurrent { EnvironmentReading().retries }
  }

  /// swift-dependencies' scope: an override, then a `@Dependency` read inside it.
  static func withDependenciesThenRead(retries: Int) -> Int {
    withDependencies {
      $0.retries = retries
    } operation: {
      @Dependency(\.retries) var retries
      return retries
    }
  }

  /// The language's own scope: a task-local value bound for a closure and read inside it.
  static func taskLocalThenRead(retries: Int) -> Int {
    $retries.withValue(retries) { Self.retries }
  }

  /// `iterations` asynchronous scopes opened on the main actor, as a view model or an app's
  /// top-level code opens them: the node made current around an `await`, with the value read
  /// inside.
  @MainActor
  static func asyncScopesOnTheMainActor(below parent: EnvironmentNode, iterations: Int) async {
    for iteration in 0..<iterations {
      let child = parent.child { $0.retries = iteration }
      blackHole(await child.withCurrent { await Self.read(EnvironmentReading().retries) })
    }
  }

  /// The same asynchronous scopes on the main actor, with a task-local value.
  @MainActor
  static func asyncTaskLocalsOnTheMainActor(iterations: Int) async {
    for iteration in 0..<iterations {
      blackHole(await $retries.withValue(iteration) { await Self.read(Self.retries) })
    }
  }

  /// An asynchronous call that stays on its caller's actor, for the scopes to await.
  @inline(never)
  nonisolated(nonsending) static func read(_ value: Int) async -> Int { value }
}

/// A component that reads the value the current node sees.
struct EnvironmentReading {
  @Environment(\.retries) var retries
}
