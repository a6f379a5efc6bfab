import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The least a scope can cost with Milieu's API shape: a model to measure against, not Milieu.
///
/// `FloorNode.root.child { $0.retries = i }`, then `child[\.retries]`, does what any
/// implementation of `EnvironmentNode.child(_:)` and its key-path subscript must do, and
/// nothing else:
/// - the configure closure writes through values that can also read what the parent sees, so
///   they hold the parent's values;
/// - the closure's write makes the scope's one allocation, the child, which holds the value;
/// - the child keeps its parent alive, keeps the parent's values (so that a read is O(1) at any
///   depth), and is linked into its parent's children under the parent's lock (so that the tree
///   can be walked and drawn);
/// - a read takes the child's lock, copies out values that hold what they read through (a
///   caller may keep them past any later write), and applies the key path to them.
///
/// It leaves out everything Milieu adds to those steps: the origin of each value (`explain`),
/// generations that tell a stale cache from a fresh one, names, change streams, the pins that
/// let a write walk the tree while nodes are freed, values that are not plain data, and more
/// than one override. Comparing the two scopes in one run shows what those cost; comparing this
/// one with a task-local scope shows what the shape itself costs.
///
/// A module of its own, like Milieu: the scope crosses the same module boundary, so the compiler
/// cannot specialize `child` for the closure the benchmark passes, nor inline the node's code.
public final class FloorNode: @unchecked Sendable {
  // @unchecked: `parent`, `snapshot` and the sibling links are written before the node is
  // shared or under the lock that guards them, as their comments say.

  /// The root every benchmarked scope is a child of.
  public static let root = FloorNode(key: nil, value: 0, snapshot: FloorSnapshot())

  /// The parent, retained by hand; set before the node is shared.
  private var parent: Unmanaged<FloorNode>?
  /// Guards `snapshot`, `firstChild`, and the sibling links of this node's children.
  private let isLocked = Atomic<Bool>(false)
  /// What the parent saw when the child was made.
  private var snapshot: FloorSnapshot?
  private var firstChild: Unmanaged<FloorNode>?
  private var previousSibling: Unmanaged<FloorNode>?
  private var nextSibling: Unmanaged<FloorNode>?
  /// The key of the value the node holds, and the value.
  @usableFromInline let key: ObjectIdentifier?
  @usableFromInline let value: Int

  @usableFromInline
  init(key: ObjectIdentifier?, value: Int, snapshot: FloorSnapshot? = nil) {
    self.key = key
    self.value = value
    self.snapshot = snapshot
  }

  private func lock() {
    while isLocked.exchange(true, ordering: .acquiring) { sched_yield() }
  }

  private func unlock() {
    isLocked.store(false, ordering: .releasing)
  }

  /// A child whose value `configure` writes; it must write one.
  public func child(_ configure: (inout FloorValues) -> Void) -> FloorNode {
    lock()
    let above = snapshot
    unlock()
    var scratch = FloorValues(base: above?.storage, held: nil, isConfiguringChild: true)
    configure(&scratch)
    guard let child = scratch.held else { preconditionFailure("configure wrote no value") }
    child.parent = Unmanaged.passUnretained(self).retain()
    child.snapshot = above
    let reference = Unmanaged.passUnretained(child)
    lock()
    child.nextSibling = firstChild
    firstChild?._withUnsafeGuaranteedRef { $0.previousSibling = reference }
    firstChild = reference
    unlock()
    return child
  }

  /// The values the node sees.
  public var values: FloorValues {
    lock()
    defer { unlock() }
    return FloorValues(base: snapshot?.storage, held: self, isConfiguringChild: false)
  }

  /// Reads one value as the node sees it, as `EnvironmentNode`'s subscript does.
  @inlinable
  public subscript<Value>(_ keyPath: KeyPath<FloorValues, Value>) -> Value {
    values[keyPath: keyPath]
  }

  deinit {
    guard let parent else { return }
    parent._withUnsafeGuaranteedRef { parent in
      parent.lock()
      if let previousSibling {
        previousSibling._withUnsafeGuaranteedRef { $0.nextSibling = nextSibling }
      } else {
        parent.firstChild = nextSibling
      }
      nextSibling?._withUnsafeGuaranteedRef { $0.previousSibling = previousSibling }
      parent.unlock()
    }
    parent.release()
  }
}

/// The parent's values, as a child keeps them.
@usableFromInline
final class FloorSnapshot: Sendable {
  let storage = FloorStorage()
}

/// Stands for the map of values a snapshot holds.
@usableFromInline
final class FloorStorage: Sendable {}

/// The values of ``FloorNode``: the value a node holds, over the parent's values. Extend it with
/// a key and an accessor, as `EnvironmentValues` is extended with an entry and an accessor.
public struct FloorValues {
  @usableFromInline var base: FloorStorage?
  @usableFromInline var held: FloorNode?
  @usableFromInline var isConfiguringChild: Bool

  @usableFromInline
  init(base: FloorStorage?, held: FloorNode?, isConfiguringChild: Bool) {
    self.base = base
    self.held = held
    self.isConfiguringChild = isConfiguringChild
  }

  /// Reads the value of a key, or, in a child's configure closure, makes the child holding it.
  @inlinable
  public subscript(key: FloorKey) -> Int {
    get {
      if let held, held.key == ObjectIdentifier(key) { return held.value }
      return key.defaultValue
    }
    set {
      precondition(isConfiguringChild, "only a child's configure closure writes")
      held = FloorNode(key: ObjectIdentifier(key), value: newValue)
    }
  }
}

/// A key and its default, like an `Entry`.
public final class FloorKey: Sendable {
  /// The value read when no node holds one for the key.
  public let defaultValue: Int

  /// Creates a key whose default is the given value.
  public init(_ defaultValue: Int) { self.defaultValue = defaultValue }
}
