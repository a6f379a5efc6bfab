extension EnvironmentNode {
  /// The node's own frame over what it inherits, as a write starts from them, with the node's
  /// version then.
  func writableValues() -> (values: EnvironmentValues, version: UInt64) {
    while true {
      let found = withLockedState { state, version -> (EnvironmentValues, UInt64)? in
        guard let inherited = state.inherited else { return nil }
        let base = inherited.isNothing ? nil : inherited
        return (EnvironmentValues(own: state.own, base: base), version)
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
  /// what it inherits; one that kept derived values built from a replaced write gets a new
  /// frame, with the values still current, so that the outdated ones go with the frames nobody
  /// reads any more. What the write replaces is released after every lock is let go: a value's
  /// deinit (an alert host's resolves its awaiters) must not run under a node's lock.
  func write(_ make: (_ own: Frame?, _ inherited: Frame?) -> Frame?) {
    var replacement: Frame?
    while true {
      let (seen, version) = writableValues()
      replacement = make(seen.own, seen.base)
      guard replacement !== seen.own else { return }
      lock.lock()
      if lock.isVersion(version) { break }
      lock.unlock()
      // Released with no lock held; `make` builds again from the node as it is now.
      replacement = nil
    }
    // What the write replaces is moved out here and released after the locks.
    var retiredView: Frame?
    if state.hasOwnView {
      // The node's view goes; what it inherits stays, since its own write cannot change that.
      retiredView = state.resolved.take()
      state.resolved = retiredView?.base ?? Frame.nothing
    }
    let old = state.own.take()
    state.own = replacement.take()
    var retired = SmallList<Frame>()
    var released: [Any] = []
    var listed: [ObjectIdentifier]?
    if state.hasChildren || old?.attachment != nil || !ChangeObservers.isEmpty {
      staleSubtree(replacing: old, retired: &retired, released: &released, listing: &listed)
    }
    lock.unlock(bumping: true)
    withExtendedLifetime((old, retiredView, retired, released)) {}
    if let listed { ChangeObservers.refresh(observersOf: listed) }
  }

  /// The part of a write that reaches past the node, called holding its lock: carries the
  /// derived values kept with its old frame `old` forward, and walks the subtree. The frames it
  /// replaces go in `retired`, and what else may hold the last reference to a value in
  /// `released`; the nodes whose change streams may see the write, in `listed`, if some stream
  /// exists.
  @inline(never)
  private func staleSubtree(
    replacing old: Frame?, retired: inout SmallList<Frame>, released: inout [Any],
    listing listed: inout [ObjectIdentifier]?
  ) {
    if !ChangeObservers.isEmpty { listed = [ObjectIdentifier(self)] }
    // The writes the new frame replaces, with the stamps this node saw for them: asked only if a
    // derived value was kept with a frame in the subtree.
    let inherited = state.resolved.flatMap { $0.isNothing ? nil : $0 }
    let write = (old: old, new: state.own, inherited: inherited)
    var outdated: Set<Stamped>?
    if let old, let new = state.own,
      case .some(.some(let carried)) = Self.carried(
        old, past: &outdated, write, released: &released)
    {
      // A derived value read in an update's body may have given the new frame a table already.
      if let attached = new.attach(carried) as? any FrameAttachment, attached !== carried {
        attached.absorb(carried)
      }
    }
    guard state.hasChildren else { return }
    let oldSource = old == nil ? state.above : self
    let newSource = state.own == nil ? state.above : self
    // Nodes that override nothing share their view: one retired is released under the lock
    // when the list already holds it, which cannot free it.
    var lastRetired: Frame?
    forEachDescendant(bumpingVersions: true) { node, state, _ in
      if let resolved = state.resolved.take(), resolved !== lastRetired {
        retired.append(resolved)
        lastRetired = resolved
      }
      state.replaceAbove(oldSource, with: newSource)
      if let own = state.own,
        let carried = Self.carried(own, past: &outdated, write, released: &released),
        carried !== own.attachment
      {
        let reissued = own.reissued()
        if let carried { reissued.attach(carried) }
        retired.append(own)
        state.own = reissued
      }
      listed?.append(ObjectIdentifier(node))
      return true
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

extension EnvironmentNode {
  /// What `frame`'s attachment keeps past the writes in `outdated` (filled, when first needed,
  /// with the writes that replacing own frame `old` with `new` over `inherited` replaces): `.none` if it has no attachment, `.some(nil)` if it keeps nothing.
  fileprivate static func carried(
    _ frame: Frame, past outdated: inout Set<Stamped>?,
    _ write: (old: Frame?, new: Frame?, inherited: Frame?), released: inout [Any]
  ) -> (any FrameAttachment)?? {
    guard let attachment = frame.attachment as? any FrameAttachment else { return .none }
    var writes =
      outdated ?? Frame.replacedWrites(from: write.old, to: write.new, over: write.inherited)
    defer { outdated = writes }
    return .some(attachment.carried(past: &writes, released: &released))
  }
}
