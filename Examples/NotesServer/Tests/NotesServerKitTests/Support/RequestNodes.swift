import Milieu
import Synchronization

/// Keeps a weak reference to every node it is shown, to check later that all of them are gone.
final class WeakNodes: Sendable {
  private struct WeakNode: Sendable {
    weak var node: EnvironmentNode?
  }

  private let nodes = Mutex<[WeakNode]>([])

  /// Remembers a node without keeping it alive.
  func remember(_ node: EnvironmentNode) {
    nodes.withLock { $0.append(WeakNode(node: node)) }
  }

  /// How many nodes were remembered.
  var count: Int { nodes.withLock { $0.count } }

  /// How many remembered nodes are still alive.
  var aliveCount: Int { nodes.withLock { $0.count { $0.node != nil } } }
}

extension EnvironmentNode {
  /// How many children the node has, as its tree dump draws them.
  ///
  /// Milieu has no public list of a node's children; its dump draws each child one level down
  /// as a line that starts with a branch, `├─ ` or `└─ `, and each override with an indent.
  var drawnChildCount: Int {
    treeDescription(maxDepth: 1).split(separator: "\n").count {
      $0.hasPrefix("├─ ") || $0.hasPrefix("└─ ")
    }
  }
}

/// Waits, yielding, until a condition holds or a time limit passes.
///
/// A request node goes when its response has been written, which, over a real connection, can
/// be a moment after the client has read the response.
///
/// - Returns: Whether the condition held in time.
func eventually(
  within limit: Duration = .seconds(10), _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: limit)
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    await Task.yield()
  }
  return true
}
