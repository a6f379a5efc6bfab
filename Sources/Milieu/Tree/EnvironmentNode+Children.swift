// Child links and lifetime.
//
// A node's children form an intrusive, doubly linked list: the parent's `state.firstChild`,
// then each child's `nextSibling`, all guarded by the parent's lock. The links are unretained,
// so a parent does not keep its children alive; they stay valid because a child unlinks itself,
// under its parent's lock, in its `deinit`, before its storage is freed. Whoever holds a node's
// lock may therefore follow the links to its children without retaining them.

extension EnvironmentNode {
  /// Puts a new child in this node's list and gives it where its values come from; caches
  /// `cache`, this node's snapshot as it was at `version`, in the child if no write reached
  /// this node since.
  func link(_ child: EnvironmentNode, cache: EnvironmentSnapshot, ifVersionIs version: UInt64) {
    let reference = Unmanaged.passUnretained(child)
    withLockedState { state, current in
      // Nobody else can see the child yet: its state needs no lock.
      child.state.above = state.source(for: self)
      if current == version { child.state.cache = cache }
      child.nextSibling = state.firstChild
      state.firstChild?._withUnsafeGuaranteedRef { $0.previousSibling = reference }
      state.firstChild = reference
    }
  }

  /// Takes a child out of this node's list of children; called from the child's `deinit`.
  ///
  /// Not inlined into the child's `deinit`: there, borrowing this node's lock made the compiler
  /// retain this node around it, an atomic operation more for every node freed.
  @inline(never)
  func unlink(_ child: EnvironmentNode) {
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
  /// Iterative, so that freeing the last holder of a 10,000-deep chain does not recurse 10,000
  /// frames deep. A parent that others still hold, the usual case, costs one release.
  static func releaseAncestors(startingAt first: Unmanaged<EnvironmentNode>?) {
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
  /// 10,000-deep chain does not exhaust a thread's stack.
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
    var path: [(node: Unmanaged<EnvironmentNode>, next: Unmanaged<EnvironmentNode>?)] = [
      (.passUnretained(self), state.firstChild)
    ]
    while let last = path.last {
      guard let child = last.next else {
        if path.count > 1 {
          last.node._withUnsafeGuaranteedRef { $0.lock.unlock(bumping: bumpingVersions) }
        }
        path.removeLast()
        continue
      }
      child._withUnsafeGuaranteedRef { node in
        assert(
          last.node._withUnsafeGuaranteedRef { $0.lock.isHeld },
          "a walk holds the lock of every node on its path while it visits below")
        path[path.count - 1].next = node.nextSibling
        node.lock.lock()
        let descends = visit(node, &node.state, path.count)
        path.append((child, descends ? node.state.firstChild : nil))
      }
    }
  }
}
