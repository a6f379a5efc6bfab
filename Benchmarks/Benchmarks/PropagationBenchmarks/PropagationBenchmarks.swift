import Benchmark
import BenchmarkSupport
import Milieu

// Suite 5, Propagation: change an override at the root, then read it at 1,000 leaves.
//
// The leaves sit three levels below the root (fan-out 10), each with a component that reads the
// value with `@Environment`. The anchor reads the same 1,000 leaves with nothing changed, so the
// ratio between the two is what a change costs the readers. Every sample checks that each leaf
// saw the new value: a benchmark that measured stale reads would be worthless.

let benchmarks: @Sendable () -> Void = {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.timing, scalingFactor: .one, maxDuration: .seconds(2),
    maxIterations: 10_000)

  let tree = LeafTree()
  Benchmark("Propagation: set at the root, then read at 1,000 leaves", configuration: configuration)
  { benchmark in
    let retries = benchmark.currentIteration
    tree.root.set(\.retries, to: retries)
    let sum = tree.sumOfReads()
    precondition(sum == retries * tree.leaves.count, "a leaf read a stale value")
    blackHole(sum)
  }

  let unchanged = LeafTree()
  Benchmark(
    "Propagation: read at 1,000 leaves, nothing changed", configuration: configuration
  ) { benchmark in
    blackHole(unchanged.sumOfReads())
  }
}

/// A root, 10 children, 100 grandchildren and 1,000 leaves, each leaf with a reading component.
final class LeafTree {
  let root = EnvironmentNode("propagation-root")
  /// Keeps every node alive: a parent does not retain its children.
  private var nodes: [EnvironmentNode] = []
  private(set) var leaves: [LeafComponent] = []

  init(fanOut: Int = 10, depth: Int = 3) {
    var level = [root]
    for _ in 0..<depth {
      level = level.flatMap { parent in (0..<fanOut).map { _ in parent.child() } }
      nodes += level
    }
    leaves = level.map { leaf in leaf.withCurrent { LeafComponent() } }
  }

  /// Reads the value once at every leaf.
  func sumOfReads() -> Int {
    var sum = 0
    for leaf in leaves { sum &+= leaf.retries }
    return sum
  }
}

/// A component at a leaf, reading the value the way application code does.
final class LeafComponent {
  @Environment(\.retries) var retries
}
