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

  /// The node whose subtree can see a cell: the node whose own frame holds the write the cell
  /// is kept with, or, for a cell kept for the process, this node's root.
  private func holder(ofAnchorOf cell: DerivedCell) -> EnvironmentNode {
    let write = cell.anchor
    var cursor = self
    while true {
      if let write,
        cursor.withLockedState({ state, _ in
          state.own.flatMap { own in own.position(of: write.key).map(own.stamp(at:)) }
        }) == write.stamp
      {
        return cursor
      }
      guard let parent = cursor.parent else { return cursor }
      cursor = parent
    }
  }
}
