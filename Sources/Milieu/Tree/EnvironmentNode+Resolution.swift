extension EnvironmentNode {
  /// The mutable part of a node, guarded by the node's lock.
  struct State {
    /// The values this node sets for its subtree.
    var overrides: SlotMap
    /// What the node sees, if no write has reached it since it was resolved: the snapshot of
    /// `above` (shared with every node that reads from there), or, for a node with overrides
    /// once it was read or a child needed it, the node's own snapshot.
    var cache: EnvironmentSnapshot?
    /// The newest of the node's children; see `EnvironmentNode.nextSibling`.
    var firstChild: Unmanaged<EnvironmentNode>?
    /// The nearest ancestor that overrides something, which is where this node's inherited
    /// values come from; `nil` when no ancestor does. Unretained: an ancestor outlives the
    /// node. Kept by the writes that give a node its first override or take its last.
    var above: Unmanaged<EnvironmentNode>?

    init(overrides: consuming SlotMap) {
      self.overrides = overrides
    }

    /// The node's values as one snapshot, which its reads and its children share, if its cache
    /// is filled. A node with overrides makes its own snapshot here, once per write that reaches
    /// it; the snapshot it replaces is handed back in `retired`, to be released once no lock is
    /// held.
    mutating func snapshot(
      of node: EnvironmentNode, retiring retired: inout EnvironmentSnapshot?
    ) -> EnvironmentSnapshot? {
      guard let cache else { return nil }
      if overrides.isEmpty || cache.owner == ObjectIdentifier(node) { return cache }
      let own = EnvironmentSnapshot(
        owner: ObjectIdentifier(node), top: overrides, base: cache.flattened)
      retired = self.cache.take()
      self.cache = own
      return own
    }

    /// Where this node's children inherit from: the node itself once it overrides something.
    func source(for node: EnvironmentNode) -> Unmanaged<EnvironmentNode>? {
      overrides.isEmpty ? above : .passUnretained(node)
    }
  }

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

  /// The node's values as one snapshot object, which a child can share or lay its overrides
  /// over; resolved first if a write reached the node since it was last resolved.
  func snapshot() -> EnvironmentSnapshot {
    while true {
      var retired: EnvironmentSnapshot?
      let snapshot = withLockedState { state, _ in state.snapshot(of: self, retiring: &retired) }
      if let snapshot { return snapshot }
      resolve()
    }
  }

  /// Fills this node's cache, and on the way the caches of the nodes its values come from.
  ///
  /// Goes up by `above`, from one node that overrides something to the next, until one is
  /// resolved, then comes back down making each one's snapshot from the one above it. Every
  /// node's version is read, under its lock, before anything above it is; each cache is filled
  /// only if that version still holds, so no write that reached a node in between is hidden
  /// behind an older snapshot. If one did, this returns early, and the caller tries again.
  func resolve() {
    // The usual case, one step: where the node's values come from is resolved.
    let (above, version) = withLockedState { state, version in (state.above, version) }
    var retired: EnvironmentSnapshot?
    let view =
      above?._withUnsafeGuaranteedRef { node in
        node.withLockedState { state, _ in state.snapshot(of: node, retiring: &retired) }
      } ?? (above == nil ? .nothing : nil)
    if let view {
      withLockedState { state, current in
        if current == version, state.cache == nil { state.cache = view }
      }
    } else {
      resolveThroughStaleSources()
    }
  }

  /// `resolve()` when the node's source is stale too. Iterative, so that 10,000 nested nodes
  /// with overrides, all stale, do not exhaust a thread's stack.
  private func resolveThroughStaleSources() {
    var pending: [(node: EnvironmentNode, version: UInt64)] = []
    var view = EnvironmentSnapshot.nothing
    var cursor: EnvironmentNode? = self
    var retired: [EnvironmentSnapshot?] = []
    while let node = cursor {
      var replaced: EnvironmentSnapshot?
      let (ready, above, version) = node.withLockedState { state, version in
        let ready = pending.isEmpty ? nil : state.snapshot(of: node, retiring: &replaced)
        return (ready, state.above, version)
      }
      retired.append(replaced)
      if let ready {
        view = ready
        break
      }
      pending.append((node, version))
      cursor = above?.takeUnretainedValue()
    }
    for (index, entry) in pending.enumerated().reversed() {
      var replaced: EnvironmentSnapshot?
      let filled = entry.node.withLockedState { state, version -> EnvironmentSnapshot? in
        guard version == entry.version else { return nil }
        if state.cache == nil { state.cache = view }
        return index == 0 ? view : state.snapshot(of: entry.node, retiring: &replaced)
      }
      retired.append(replaced)
      guard let filled else { return }
      view = filled
    }
  }

  /// Changes the node's overrides and stales every cache in its subtree.
  ///
  /// `change` gets the overrides and the serial number of this write, and says whether it
  /// changed anything. The node keeps the snapshot it inherits, which its own write cannot
  /// change; its own snapshot, and every cache below it, is dropped. The node's lock is held from the change to the end of the walk below
  /// it, and each descendant's while the walk is under it, so a reader that finds a version
  /// unchanged saw nothing of the write, and one that finds it bumped sees all of it. What the
  /// write replaces is released after every lock is let go: a value's deinit (an alert host's
  /// resolves its awaiters) must not run under a node's lock.
  func write(_ change: (inout SlotMap, _ serial: UInt64) -> Bool) {
    var retired: [EnvironmentSnapshot] = []
    // The nodes whose change streams may see the write, listed only while some stream exists.
    var listed: [ObjectIdentifier]? = ChangeObservers.isEmpty ? nil : [ObjectIdentifier(self)]
    let version = lock.lock()
    let replaced = state.overrides
    guard change(&state.overrides, version + 1) else {
      lock.unlock()
      return
    }
    // What the node sees from above does not change with its own overrides: only a snapshot of
    // its own values goes stale.
    let cache = state.cache?.owner == ObjectIdentifier(self) ? state.cache.take() : nil
    if state.firstChild != nil {
      let oldSource = replaced.isEmpty ? state.above : .passUnretained(self)
      let newSource = state.source(for: self)
      forEachDescendant(bumpingVersions: true) { node, state, _ in
        if let cache = state.cache.take() { retired.append(cache) }
        if state.above?.toOpaque() == oldSource?.toOpaque() { state.above = newSource }
        listed?.append(ObjectIdentifier(node))
        return true
      }
    }
    lock.unlock(bumping: true)
    withExtendedLifetime((replaced, cache, retired)) {}
    if let listed { ChangeObservers.refresh(observersOf: listed) }
  }
}
