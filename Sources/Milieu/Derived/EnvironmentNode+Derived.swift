extension EnvironmentNode {
  /// Drops the kept ``EnvironmentValues/Derived`` value this node reads at a key path, so that
  /// the next read builds it again: a session ends, a user logs out.
  ///
  /// The value is dropped wherever it is kept, for every node that shares it, and so is every
  /// kept value built from it. ``Environment`` wrappers in the subtree that shares it read the
  /// new value at their next read. A value kept with no anchor (built from defaults alone, or
  /// one per process) is dropped for the process; wrappers outside this node's tree see that at
  /// their node's next write.
  ///
  /// ```swift
  /// app.discardDerived(\.session)
  /// app[\.session]  // a new session
  /// ```
  ///
  /// - Parameter keyPath: The derived value to drop. A key path that reads no derived value,
  ///   or one that is built anew on every read, drops nothing.
  public func discardDerived<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    for case let cell as DerivedCell in Self.record(keyPath, in: values).attachments {
      cell.discard()
      holder(ofAnchorOf: cell).bumpVersions()
    }
  }

  /// The node whose subtree can see a cell: the node that set the slot it is kept with, or, for
  /// a cell kept with no slot, this node's root.
  private func holder(ofAnchorOf cell: DerivedCell) -> EnvironmentNode {
    let anchor = cell.anchor
    var cursor = self
    while true {
      if let anchor,
        cursor.withLockedState({ state, _ in
          state.overrides.slots.contains { ObjectIdentifier($0) == anchor }
        })
      {
        return cursor
      }
      guard let parent = cursor.parent else { return cursor }
      cursor = parent
    }
  }

  /// Bumps the version of this node and of every node below it, so that every wrapper there
  /// reads again; the values they see are unchanged.
  func bumpVersions() {
    lock.lock()
    if state.firstChild != nil {
      forEachDescendant(bumpingVersions: true) { _, _, _ in true }
    }
    lock.unlock(bumping: true)
  }
}
