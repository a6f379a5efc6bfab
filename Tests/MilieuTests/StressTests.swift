import Milieu
import MilieuTestSupport
import Synchronization
import Testing

/// Both halves of the pair that the stress writers always set together, read in one snapshot.
struct Pair: Sendable, Equatable {
  var left: Int
  var right: Int
}

extension EnvironmentValues {
  /// Reads both halves at once, so that an `@Environment` wrapper reads them from one snapshot.
  var pair: Pair { Pair(left: pairLeft, right: pairRight) }
}

/// Reads the pair through an `@Environment` wrapper, whose cache is stressed along with the tree.
struct PairReader {
  @Environment(\.pair) var pair
}

@Suite struct StressTests {
  static let nodeCount = 10_000
  static let taskCount = 16
  static let operationsPerTask = 1_000

  /// 16 tasks × 1,000 operations over a 10,000-node tree: writes that set both halves of a pair
  /// in one update, reads of the pair through `values` and through `@Environment` wrappers, and
  /// short-lived children created, written (as they are made, or by an update after) and
  /// dropped while the others run.
  ///
  /// Every value written encodes the node it was written to. A read must see both halves equal
  /// (no torn read), from the node itself or one of its ancestors (no leak across subtrees), and
  /// a task that has just written a node must read that node's own write back.
  @Test func readsAreNeverTornWhileSixteenTasksWriteAcrossTenThousandNodes() async {
    let tree = StressTree(nodeCount: Self.nodeCount, seed: 0x5EED)
    let readers = tree.nodes.map { node in node.withCurrent { PairReader() } }

    let tallies = await withTaskGroup(of: Tally.self) { group in
      for task in 0..<Self.taskCount {
        group.addTask {
          var random = SplitMix64(seed: UInt64(task) &+ 1)
          var tally = Tally()
          for step in 0..<Self.operationsPerTask {
            let index = Int.random(in: 0..<tree.nodes.count, using: &random)
            switch UInt8.random(in: 0..<16, using: &random) {
            case 0..<4:
              let written = StressValue(node: index, task: task, step: step).encoded
              tree.nodes[index].update {
                $0.pairLeft = written
                $0.pairRight = written
              }
              tally.writes += 1
              // The node now has an override of its own, which only another write replaces.
              let source = StressValue(tree.nodes[index].values.pairLeft).node
              if source != index { tally.lostWrites += 1 }
            case 4..<12:
              tally.record(tree.nodes[index].values.pair, at: index, in: tree)
            case 12..<15:
              tally.record(readers[index].pair, at: index, in: tree)
            default:
              // Half the children get their pair as they are made (the child node then holds
              // the first half itself), half from an update after.
              let written = StressValue(node: index, task: task, step: step).encoded
              let child: EnvironmentNode
              if step.isMultiple(of: 2) {
                child = tree.nodes[index].child {
                  $0.pairLeft = written
                  $0.pairRight = written
                }
              } else {
                child = tree.nodes[index].child()
                child.update {
                  $0.pairLeft = written
                  $0.pairRight = written
                }
              }
              if child.values.pair != Pair(left: written, right: written) {
                tally.lostWrites += 1
              }
              tally.record(child.values.pair, at: index, in: tree)
              tally.churned += 1
            }
            tally.operations += 1
          }
          return tally
        }
      }
      return await group.reduce(into: Tally()) { $0.merge($1) }
    }

    #expect(tallies.operations == Self.taskCount * Self.operationsPerTask)
    #expect(tallies.torn == 0, "torn reads")
    #expect(tallies.foreign == 0, "reads of values written outside the node's path to the root")
    #expect(tallies.lostWrites == 0, "writes a task did not read back")
    #expect(tallies.writes > 0 && tallies.reads > 0 && tallies.churned > 0)

    // Quiescent: every node agrees with what its nearest writer left, read both ways.
    var mismatches = 0
    for index in tree.nodes.indices {
      let values = tree.nodes[index].values
      if values.pair != readers[index].pair || values.pairLeft != values.pairRight {
        mismatches += 1
      }
      if values.pairLeft != 0, !tree.isOnPath(StressValue(values.pairLeft).node, to: index) {
        mismatches += 1
      }
    }
    #expect(mismatches == 0)
  }
}

/// A tree shaped by a seeded generator: a random recursive tree (each node hung below a random
/// earlier one: bushy, about 10 levels deep) with a tenth of the nodes in one chain below one of
/// them, so that reads resolve paths of a thousand nodes as well as short ones.
struct StressTree: Sendable {
  let nodes: [EnvironmentNode]
  let parents: [Int]

  var root: EnvironmentNode { nodes[0] }

  /// Builds the tree: below `parent` when given, else as a root of its own.
  ///
  /// - Parameters:
  ///   - nodeCount: The number of nodes, the top one included.
  ///   - seed: Seeds the shape.
  ///   - parent: The node the tree hangs from, if any.
  ///   - configure: Sets the overrides of the node at an index as it is made.
  init(
    nodeCount: Int, seed: UInt64, below parent: EnvironmentNode? = nil,
    configure: (Int, inout EnvironmentValues) -> Void = { _, _ in }
  ) {
    var random = SplitMix64(seed: seed)
    let top =
      parent?.child("stress root") { configure(0, &$0) }
      ?? EnvironmentNode("stress root").child { configure(0, &$0) }
    var nodes = [top]
    var parents = [-1]
    let chainStart = nodeCount - nodeCount / 10
    for index in 1..<nodeCount {
      let parent =
        index > chainStart ? index - 1 : Int.random(in: 0..<index, using: &random)
      nodes.append(nodes[parent].child { configure(index, &$0) })
      parents.append(parent)
    }
    self.nodes = nodes
    self.parents = parents
  }

  /// Whether `ancestor` is `node` or one of its ancestors.
  func isOnPath(_ ancestor: Int, to node: Int) -> Bool {
    var cursor = node
    while cursor >= 0 {
      if cursor == ancestor { return true }
      cursor = parents[cursor]
    }
    return false
  }
}

/// A value written by the stress test: which node, task and step wrote it, packed into an `Int`.
struct StressValue {
  var node: Int
  var task: Int
  var step: Int

  init(node: Int, task: Int, step: Int) {
    self.node = node
    self.task = task
    self.step = step
  }

  init(_ encoded: Int) {
    node = encoded >> 32
    task = (encoded >> 16) & 0xFFFF
    step = (encoded & 0xFFFF) - 1
  }

  /// Never 0, the entries' default.
  var encoded: Int { node << 32 | task << 16 | (step + 1) }
}

/// What one task saw.
struct Tally: Sendable {
  var operations = 0
  var writes = 0
  var reads = 0
  var churned = 0
  var torn = 0
  var foreign = 0
  var lostWrites = 0

  /// Records a read at a node (a churned child counts as its parent's index).
  mutating func record(_ pair: Pair, at index: Int, in tree: StressTree) {
    reads += 1
    if pair.left != pair.right { torn += 1 }
    if pair.left != 0 && !tree.isOnPath(StressValue(pair.left).node, to: index) { foreign += 1 }
  }

  mutating func merge(_ other: Tally) {
    operations += other.operations
    writes += other.writes
    reads += other.reads
    churned += other.churned
    torn += other.torn
    foreign += other.foreign
    lostWrites += other.lostWrites
  }
}
