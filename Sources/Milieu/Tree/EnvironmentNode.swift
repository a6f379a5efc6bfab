import Synchronization

// The node, its links and its lifetime. One of the three files of the core that hold unsafe code
// (the others: `Support/Synchronization.swift` and `Values/Frame.swift`).
//
// What this file guarantees to the rest of the core, which uses only its safe surface:
// - A node's `state` is read and written only under its lock (`withLockedState`, or a walk that
//   holds it), which also makes the runtime's exclusivity checks redundant.
// - A node's children form an intrusive, doubly linked list: the parent's `state.firstChild`,
//   then each child's `nextSibling`, all guarded by the parent's lock. The links are unretained,
//   so a parent does not keep its children alive; they stay valid because a child unlinks itself,
//   under its parent's lock, in its `deinit`, before its storage is freed. Whoever holds a node's
//   lock may follow the links to its children without retaining them.
// - A child retains its parent, released by hand when the child is freed, iteratively, so that
//   freeing the last holder of a 100,000-deep chain does not recurse.
// - `above` names an ancestor, which a node keeps alive through its parent: it is followed only
//   while the node is held.
// - A node's derived-value cache names it unretained (`UnretainedNode`), and uses it only while
//   it pins it, which it does under its lock unless the node let go of it there: a node's
//   `deinit` does that first, waiting until no pin is left, so a pinned node is whole.

/// A node in a tree that carries ``EnvironmentValues`` from the root down.
///
/// `EnvironmentNode()` makes a root. A child inherits every value its parent sees and may
/// override any of them for its own subtree: siblings and ancestors never see a child's
/// overrides.
///
/// ```swift
/// let app = EnvironmentNode("app")
/// app.set(\.retries, to: 3)
///
/// let request = app.child("request") { $0.retries = 5 }
/// print(request[\.retries])  // 5
/// print(app[\.retries])      // 3
/// ```
///
/// Overrides can change at any time; every descendant sees the change at its next read, and a
/// read is a consistent snapshot of the whole path to the root, never torn. A child keeps its
/// parent alive; a parent does not keep its children alive, so dropping a subtree frees it.
///
/// - Complexity: A read whose node has seen no write since its last read is O(1) at any depth
///   and allocates nothing. A write visits the written node's subtree once and nothing else, so
///   readers elsewhere keep their caches. The first read after a write re-resolves from the
///   nearest node above that overrides something, not from the root.
public final class EnvironmentNode: @unchecked Sendable {
  // @unchecked: `parentReference`, `name` and `lock` are `let`s; `state` is guarded by the node's
  // lock and the sibling links by the parent's, as the file's guarantees say.

  /// The process-wide root: the current node outside any ``withCurrent(_:)`` scope.
  ///
  /// ```swift
  /// EnvironmentNode.root.set(\.retries, to: 2)
  /// ```
  public static let root = EnvironmentNode("root")

  /// The parent, retained when this node is made and released by hand when it is freed.
  private let parentReference: Unmanaged<EnvironmentNode>?

  /// The node's name, if it has one.
  public let name: String?

  /// Guards `state`; its version counts the writes that have reached the node.
  @usableFromInline let lock: VersionedLock

  /// The node's mutable state, accessed only while `lock` is held.
  @exclusivity(unchecked) nonisolated(unsafe) var state: State

  /// The node's neighbours among its parent's children, guarded by the *parent's* lock.
  @exclusivity(unchecked) nonisolated(unsafe) private var previousSibling:
    Unmanaged<EnvironmentNode>?
  @exclusivity(unchecked) nonisolated(unsafe) private var nextSibling: Unmanaged<EnvironmentNode>?

  /// The mutable part of a node, guarded by the node's lock.
  struct State {
    /// The values this node sets for its subtree: a frozen frame, `nil` when it sets none.
    var own: Frame?
    /// What the node's values are resolved against: the view of the nearest ancestor that
    /// overrides something (`Frame.nothing` if none does), or, once a child or a derived value
    /// needed it, the node's own view, whose `top` is `own`. `nil` after a write reached the
    /// node and until its next read.
    var resolved: Frame?
    /// The nearest ancestor that overrides something, where the node's inherited values come
    /// from, unretained: the node keeps it alive through its parent. `nil` when none does.
    fileprivate var aboveReference: Unmanaged<EnvironmentNode>?
    /// The newest of the node's children.
    fileprivate var firstChild: Unmanaged<EnvironmentNode>?

    init(own: Frame?) {
      self.own = own
    }

    /// The nearest ancestor that overrides something; `nil` when none does.
    var above: EnvironmentNode? { aboveReference?.takeUnretainedValue() }

    /// Makes `new` the nearest overriding ancestor if it was `old`: a write made `old` override
    /// nothing, or made `new` override something.
    mutating func replaceAbove(_ old: EnvironmentNode?, with new: EnvironmentNode?) {
      guard aboveReference?.toOpaque() == old.map({ Unmanaged.passUnretained($0).toOpaque() })
      else { return }
      aboveReference = new.map { .passUnretained($0) }
    }

    /// Whether the node is resolved against its own view.
    var hasOwnView: Bool {
      guard let own, let resolved else { return false }
      return resolved.isView(of: own)
    }

    /// What the node inherits, if it is resolved: the view of the nearest ancestor that
    /// overrides something, or `Frame.nothing`.
    var inherited: Frame? {
      hasOwnView ? (resolved?.base ?? Frame.nothing) : resolved
    }

    /// The values a node with this state reads, if it is resolved: its own frame over what it
    /// inherits, or its view, which holds both. Retains only the frames the values hold.
    var values: EnvironmentValues? {
      guard let resolved else { return nil }
      let base = resolved.isNothing ? nil : resolved
      return hasOwnView || own == nil
        ? EnvironmentValues(own: nil, base: base) : EnvironmentValues(own: own, base: base)
    }

    /// What the node's children see, if it needs no new view: what the node inherits, when it
    /// overrides nothing, or its own view.
    var viewForChildren: Frame? {
      own == nil || hasOwnView ? resolved : nil
    }

    /// Whether the node has children.
    var hasChildren: Bool { firstChild != nil }

    /// How many children the node has.
    var childCount: Int {
      var count = 0
      var cursor = firstChild
      while let child = cursor {
        count += 1
        cursor = child._withUnsafeGuaranteedRef { $0.nextSibling }
      }
      return count
    }
  }

  init(name: String?, parent: EnvironmentNode?, own: Frame?, depth: UInt32) {
    self.parentReference = parent.map { .passRetained($0) }
    self.name = name
    self.lock = VersionedLock(depth: depth)
    self.state = State(own: own)
  }

  deinit {
    let cells = state.own?.cache?.orphan()
    // Unlinked first: until then a write above may walk this node and take its view, which the
    // node's state releases after this.
    if let parentReference { parentReference._withUnsafeGuaranteedRef { $0.unlink(self) } }
    ChangeObservers.nodeWillDeinitialize(ObjectIdentifier(self))
    Self.releaseAncestors(startingAt: parentReference)
    withExtendedLifetime(cells) {}
  }

  /// The node this one inherits from, or `nil` for a root.
  public var parent: EnvironmentNode? { parentReference?.takeUnretainedValue() }

  /// How many ancestors the node has: 0 for a root; kept in the lock's word.
  var depth: UInt32 { lock.depth }

  /// Whether this node is the last child of its parent, for tree dumps; call it holding the
  /// parent's lock.
  var isLastSibling: Bool { nextSibling == nil }

  /// Runs `body` with the node's state and version, under the node's lock.
  ///
  /// Keep `body` short: loads, stores, and making Milieu's own objects. Run no code the caller
  /// passed in, release nothing that might hold a value (hand it out instead), and take no
  /// other node's lock, except down the tree as `forEachDescendant` does.
  @inline(__always)
  func withLockedState<Result>(_ body: (inout State, _ version: UInt64) -> Result) -> Result {
    let version = lock.lock()
    defer { lock.unlock() }
    return body(&state, version)
  }

  // MARK: Links

  /// Puts a new child in this node's list and gives it where its values come from: `resolved`,
  /// what this node's children see as it was at `version`, if no write reached this node since
  /// (and it is given), else the ancestor it inherits from.
  /// Returns whether the version was `version`.
  @discardableResult
  func link(_ child: EnvironmentNode, resolved: consuming Frame?, ifVersionIs version: UInt64)
    -> Bool
  {
    let reference = Unmanaged.passUnretained(child)
    return withLockedState { state, current in
      // Nobody else can see the child yet: its state needs no lock.
      child.state.aboveReference = state.own == nil ? state.aboveReference : .passUnretained(self)
      if current == version { child.state.resolved = resolved.take() }
      child.nextSibling = state.firstChild
      state.firstChild?._withUnsafeGuaranteedRef { $0.previousSibling = reference }
      state.firstChild = reference
      return current == version
    }
  }

  /// Takes a child out of this node's list of children; called from the child's `deinit`.
  ///
  /// Not inlined into the child's `deinit`: there, borrowing this node's lock made the compiler
  /// retain this node around it, an atomic operation more for every node freed.
  @inline(never)
  private func unlink(_ child: EnvironmentNode) {
    withLockedState { state, _ in
      let (previous, next) = (child.previousSibling, child.nextSibling)
      if let previous {
        previous._withUnsafeGuaranteedRef { $0.nextSibling = next }
      } else {
        state.firstChild = next
      }
      next?._withUnsafeGuaranteedRef { $0.previousSibling = previous }
    }
  }

  /// Releases a freed node's reference to its parent, and, where that frees the parent, the
  /// parent's reference to its own parent, and so on up the chain.
  ///
  /// Iterative, so that freeing the last holder of a 100,000-deep chain does not recurse
  /// 100,000 frames deep. A parent that others still hold, the usual case, costs one release.
  private static func releaseAncestors(startingAt first: Unmanaged<EnvironmentNode>?) {
    var next = first
    while let reference = next {
      var node = reference.takeRetainedValue()
      guard isKnownUniquelyReferenced(&node) else { return }
      // Probably the last reference, unless a weak reference is being loaded right now. Keep
      // the grandparent alive past the node: if the node is freed, its deinit releases the
      // grandparent once, which cannot free it, and this loop goes on with the reference it
      // holds; if not, the node keeps its own.
      next = node.parentReference?.retain()
    }
  }

  /// Visits every descendant of this node, depth first and newest child first, each with its
  /// state under its own lock. The caller holds this node's lock.
  ///
  /// The lock of every node on the path down to the one visited stays held until the walk is
  /// done with its subtree: so no child the walk finds can be unlinked and freed under it, and
  /// a write that reaches a node walks its subtree after any walk that holds the node. Locks
  /// are only ever taken down the tree while another is held, so walks cannot deadlock with
  /// each other, nor with readers and `child`, which hold one lock at a time. Iterative, so a
  /// 100,000-deep chain does not exhaust a thread's stack.
  ///
  /// - Parameters:
  ///   - bumpingVersions: Whether each descendant's version is bumped as the walk lets it go.
  ///   - visit: Gets a descendant, its state and its depth below this node (1 for a child),
  ///     and says whether to visit its children. It must not release anything that might hold
  ///     a value, nor run code the caller passed in.
  func forEachDescendant(
    bumpingVersions: Bool, _ visit: (EnvironmentNode, inout State, _ depth: Int) -> Bool
  ) {
    assert(lock.isHeld, "a walk starts holding the lock of the node it walks below")
    // The node whose subtree the walk is in, and the child of it to visit next; back up through
    // parents, so the walk needs no list of its path.
    var node = Unmanaged.passUnretained(self)
    var next = state.firstChild
    var depth = 0
    while true {
      if let child = next {
        child._withUnsafeGuaranteedRef { child in
          WorkCount.add()
          child.lock.lock()
          depth += 1
          next = visit(child, &child.state, depth) ? child.state.firstChild : nil
        }
        node = child
        continue
      }
      guard depth > 0 else { return }
      // Done with `node` and its subtree: let it go and go on with its next sibling, which its
      // parent's lock, still held, guards.
      node._withUnsafeGuaranteedRef { done in
        assert(
          done.parentReference.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.lock.isHeld },
          "a walk holds the lock of every node on its path while it visits below")
        next = done.nextSibling
        node = done.parentReference.unsafelyUnwrapped
        done.lock.unlock(bumping: bumpingVersions)
      }
      depth -= 1
    }
  }
}

/// A node named unretained, as its derived-value cache names it.
struct UnretainedNode: @unchecked Sendable {
  // @unchecked: the node is used only while its cache pins it, and a node's deinit waits until
  // no pin is left before it lets go of anything (see the file's guarantees).
  private let reference: Unmanaged<EnvironmentNode>

  init(_ node: EnvironmentNode) {
    reference = .passUnretained(node)
  }

  /// Runs `body` with the node, which its cache pins.
  func withNode<Result>(_ body: (EnvironmentNode) -> Result) -> Result {
    reference._withUnsafeGuaranteedRef(body)
  }
}
