extension EnvironmentNode {
  /// The node's own frame over what it inherits, as a write starts from them, with the node's
  /// version then.
  func writableValues() -> (values: EnvironmentValues, version: UInt64, hasChildren: Bool) {
    while true {
      let found = withLockedState { state, version -> (EnvironmentValues, UInt64, Bool)? in
        guard let inherited = state.inherited else { return nil }
        let base = inherited.isNothing ? nil : inherited
        return (EnvironmentValues(own: state.own, base: base), version, state.hasChildren)
      }
      if let found { return found }
      resolve()
    }
  }

  /// What this node's children see: its view, made now if it overrides something and has none;
  /// else what it inherits.
  func viewForChildren() -> Frame {
    while true {
      let (view, own, resolved, version) = withLockedState {
        state, version -> (Frame?, Frame?, Frame?, UInt64) in
        // Usually the view is there: retain nothing more than it.
        if let view = state.viewForChildren { return (view, nil, nil, version) }
        return (nil, state.own, state.resolved, version)
      }
      if let view { return view }
      guard let own, let resolved else {
        resolve()
        continue
      }
      let made = Frame.view(of: own, over: resolved.isNothing ? nil : resolved)
      let stored = withLockedState { state, current -> Bool in
        guard current == version, state.resolved === resolved else { return false }
        // What the view replaces is kept alive by the view itself: nothing is freed here.
        state.resolved = made
        return true
      }
      if stored { return made }
    }
  }

  /// Resolves this node: gives it what it inherits, and on the way, what every node it inherits
  /// from sees.
  ///
  /// Goes up by `above`, from one node that overrides something to the next, until one is
  /// resolved, then comes back down making each one's view from the one above it. Every
  /// node's version is read, under its lock, before anything above it is; each is resolved
  /// only if that version still holds, so no write that reached a node in between is hidden
  /// behind an older view. If one did, this returns early, and the caller tries again.
  /// Iterative, so that 100,000 nested nodes with overrides, all stale, do not exhaust a
  /// thread's stack.
  func resolve() {
    var pending = SmallList<(node: EnvironmentNode, version: UInt64)>()
    var view = Frame.nothing
    var cursor: EnvironmentNode? = self
    while let node = cursor {
      let (isResolved, above, version) = node.withLockedState { state, version in
        (state.resolved != nil, state.above, version)
      }
      if isResolved {
        if node === self { return }
        view = node.viewForChildren()
        break
      }
      pending.append((node, version))
      WorkCount.add()
      cursor = above
    }
    pending.reversedForEach { node, version in
      let filled = node.withLockedState { state, current -> Bool in
        guard current == version else { return false }
        if state.resolved == nil { state.resolved = view }
        return true
      }
      guard filled, node !== self else { return false }
      view = node.viewForChildren()
      return true
    }
  }

  /// Replaces the node's own frame with the one `make` builds and stales every cache in its
  /// subtree.
  ///
  /// `make` gets the node's own frame and what the node inherits (`nil` for nothing) and returns
  /// the new own frame, frozen, or the same one when the write changes nothing. It runs with no
  /// lock held, so that no frame is made or freed under one, and again if another write reached
  /// the node meanwhile: the frame is installed only if the node is still as `make` saw it.
  ///
  /// The node's lock is held from the install to the end of the walk below it, and each
  /// descendant's while the walk is under it, so a reader that finds a version unchanged saw
  /// nothing of the write, and one that finds it bumped sees all of it. Each descendant forgets
  /// what it inherits. The node and every descendant with an own frame evict from their derived
  /// cache the values built from a write this one replaced, and bump its generation. What the
  /// write replaces is released after every lock is let go: a value's deinit (an alert host's
  /// resolves its awaiters) must not run under a node's lock.
  func write(_ make: (_ own: Frame?, _ inherited: Frame?) -> Frame?) {
    write(from: writableValues(), make)
  }

  /// ``write(_:)`` from the node as `start` read it.
  func write(
    from start: (values: EnvironmentValues, version: UInt64, hasChildren: Bool),
    _ make: (_ own: Frame?, _ inherited: Frame?) -> Frame?
  ) {
    var (seen, version, hasChildren) = start
    var replacement: Frame?
    // What the write replaces, with the stamps the node saw for them: for the caches that may
    // keep values built from them, found before the lock is taken.
    var replaced = ReplacedWrites()
    var knowsReplaced = false
    var cache: DerivedCache?
    while true {
      replacement = make(seen.own, seen.base)
      guard replacement !== seen.own else { return }
      // The node's one cache goes with every frame it has.
      cache = replacement.map {
        $0.cache ?? $0.attachCache(seen.own?.cache ?? DerivedCache(node: self))
      }
      if !knowsReplaced, hasChildren || cache?.mayHoldCells == true {
        replaced = Frame.replacedWrites(from: seen.own, to: replacement, over: seen.base)
        knowsReplaced = true
      }
      lock.lock()
      if lock.isVersion(version), knowsReplaced || !state.hasChildren { break }
      lock.unlock()
      // Released with no lock held; `make` builds again from the node as it is now.
      replacement = nil
      knowsReplaced = false
      (seen, version, hasChildren) = writableValues()
    }
    // What the write replaces is moved out here and released after the locks.
    var retiredView: Frame?
    if state.hasOwnView {
      // The node's view goes; what it inherits stays, since its own write cannot change that.
      retiredView = state.resolved.take()
      state.resolved = retiredView?.base ?? Frame.nothing
    }
    let old = state.own.take()
    var released: [DerivedCache.Entry] = []
    var evicted: [DerivedCell] = []
    // Where the values it evicts are parked for the values taken before it, in the views the
    // write retires: made only once a value is evicted, and only if the node overrode something,
    // since otherwise the views below it are its ancestors', which others still read.
    var parked = Parking(isPossible: old != nil)
    if let replacement, let cache {
      replacement.generation = cache.evict(
        &replaced, parkingIn: parked.cache(on: retiredView, if: cache), into: &evicted)
    } else {
      released = old?.cache?.orphan() ?? []
    }
    state.own = replacement.take()
    var retired = SmallList<Frame>()
    if state.hasChildren {
      staleSubtree(
        replacing: old, &replaced, parking: &parked, retired: &retired, evicted: &evicted)
    }
    lock.unlock(bumping: true)
    withExtendedLifetime((old, retiredView, retired, released, evicted, parked)) {}
    ChangeObservers.refresh(below: self)
  }

  /// The part of a write that reaches past the node, called holding its lock: walks the
  /// subtree. The frames it replaces go in `retired`, and what else may hold the last reference
  /// to a value in `released`.
  @inline(never)
  private func staleSubtree(
    replacing old: Frame?, _ replaced: inout ReplacedWrites, parking parked: inout Parking,
    retired: inout SmallList<Frame>, evicted: inout [DerivedCell]
  ) {
    let oldSource = old == nil ? state.above : self
    let newSource = state.own == nil ? state.above : self
    // Nodes that override nothing share their view: one retired is released under the lock
    // when the list already holds it, which cannot free it.
    var lastRetired: Frame?
    forEachDescendant(bumpingVersions: true) { _, state, _ in
      let resolved = state.resolved.take()
      if let resolved, resolved !== lastRetired {
        retired.append(resolved)
        lastRetired = resolved
      }
      state.replaceAbove(oldSource, with: newSource)
      if let cache = state.own?.cache {
        cache.evict(&replaced, parkingIn: parked.cache(on: resolved, if: cache), into: &evicted)
      }
      return true
    }
  }

  /// Where a write parks what it evicts: one cache, made when a value is first evicted, given
  /// to each view it retires: values taken before the write, which hold the view, find them there.
  struct Parking {
    let isPossible: Bool
    private var parked: DerivedCache?

    init(isPossible: Bool) {
      self.isPossible = isPossible
    }

    /// The cache to park in what `cache` evicts, given to `view`; `nil` if nothing can be.
    mutating func cache(on view: Frame?, if cache: DerivedCache?) -> DerivedCache? {
      guard isPossible, let view, !view.isNothing, cache?.mayHoldCells == true else { return nil }
      let parking = parked ?? DerivedCache(parking: ())
      parked = parking
      return view.attachCache(parking)
    }
  }

  /// Bumps the version of this node and of every node below it, so that every wrapper there
  /// reads again; the values they see are unchanged.
  func bumpVersions() {
    lock.lock()
    if state.hasChildren {
      forEachDescendant(bumpingVersions: true) { _, _, _ in true }
    }
    lock.unlock(bumping: true)
  }
}
