import Benchmark
import BenchmarkSupport
import Milieu

// Suite 5, Propagation: change an override at the root, then read it at 1,000 leaves; and what
// one write above 100,000 descendants costs, against a loop that visits as many objects.
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

  let wide = WideSubtree()
  Benchmark("Write: set on a node above 100,000 descendants", configuration: configuration) {
    benchmark in
    wide.top.set(\.retries, to: benchmark.currentIteration)
  }
  let floor = VisitFloor()
  Benchmark("Write: floor, a loop visiting 100,000 objects once", configuration: configuration) {
    _ in
    floor.visitAll()
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

/// A node with 100,000 descendants, fan-out 10, for the cost of one write above them all.
final class WideSubtree: Sendable {
  let top = EnvironmentNode("write-top")
  /// Keeps every node alive: a parent does not retain its children.
  private let nodes: [EnvironmentNode]

  init(descendants: Int = 100_000) {
    var nodes: [EnvironmentNode] = []
    nodes.reserveCapacity(descendants)
    var parents = [top]
    var next = 0
    while nodes.count < descendants {
      let child = parents[next / 10].child()
      nodes.append(child)
      parents.append(child)
      next += 1
    }
    self.nodes = nodes
  }
}

/// The floor for touching a subtree: 100,000 objects made in the same order as the nodes,
/// each visited once and changed.
final class VisitFloor: @unchecked Sendable {
  // @unchecked: only the benchmark's one thread touches it.
  final class Visited {
    var count = 0
  }
  private let objects = (0..<100_000).map { _ in Visited() }

  func visitAll() {
    for object in objects { object.count &+= 1 }
  }
}
