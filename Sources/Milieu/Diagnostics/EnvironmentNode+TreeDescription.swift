extension EnvironmentNode {
  /// Draws this node and its subtree: each node's name, then its overrides with their origins.
  ///
  /// An override is followed by the ``EnvironmentValues/Derived`` values kept with it (see
  /// ``EnvironmentValues/DerivedLifetime/onePerInputs``), and an override of a derived value
  /// itself says so.
  ///
  /// ```swift
  /// print(app.treeDescription())
  /// // node "app"
  /// // │  retries = 3  (App/Main.swift:12)
  /// // ├─ node "library"
  /// // │  └─ node "folder: Work"
  /// // │        retries = 5  (App/Folder.swift:30)
  /// // └─ node "sheet"
  /// ```
  ///
  /// Children appear newest first. Nodes that nobody holds any more are gone from the tree and
  /// are not drawn.
  ///
  /// - Parameter maxDepth: How many levels below this node to draw; deeper levels are counted,
  ///   not drawn.
  /// - Returns: The drawing, one line per node and per override, without a trailing newline.
  public func treeDescription(maxDepth: Int = 32) -> String {
    // The tree is read under the walk's locks; the values are described after every lock is
    // let go, since describing runs their `description`, code Milieu does not control.
    var drawn: [DrawnNode] = []
    var childPrefixes = [""]
    withLockedState { state, _ in
      drawn.append(
        DrawnNode(
          prefix: "", childPrefix: "", name: name, overrides: state.overrides.slots,
          hasChildren: state.firstChild != nil, hidden: maxDepth > 0 ? 0 : state.childCount))
      guard maxDepth > 0 else { return }
      forEachDescendant(bumpingVersions: false) { node, state, depth in
        let isLast = node.nextSibling == nil
        let above = childPrefixes[depth - 1]
        childPrefixes.removeSubrange(depth...)
        childPrefixes.append(above + (isLast ? "   " : "│  "))
        let descends = depth < maxDepth
        drawn.append(
          DrawnNode(
            prefix: above + (isLast ? "└─ " : "├─ "), childPrefix: childPrefixes[depth],
            name: node.name, overrides: state.overrides.slots,
            hasChildren: state.firstChild != nil, hidden: descends ? 0 : state.childCount))
        return descends
      }
    }
    return drawn.flatMap(\.lines).joined(separator: "\n")
  }

  /// One node of a tree dump, read under its lock and drawn after.
  private struct DrawnNode {
    var prefix: String
    var childPrefix: String
    var name: String?
    var overrides: [Slot]
    var hasChildren: Bool
    /// Children past the depth limit, counted rather than drawn.
    var hidden: Int

    var lines: [String] {
      var lines = [prefix + EnvironmentNode.displayName(name)]
      let overridePrefix = childPrefix + (hasChildren ? "│  " : "   ")
      for slot in overrides.sorted(by: { ($0.origin?.serial ?? 0) < ($1.origin?.serial ?? 0) }) {
        let origin = slot.origin.map { "  (\($0.location))" } ?? ""
        let overridden = slot.anchor is any DerivedKey ? "  (overrides a derived value)" : ""
        lines.append(
          overridePrefix
            + "\(slot.name) = \(EnvironmentNode.describe(slot.anyValue))\(origin)\(overridden)")
        // The derived values built from this override and kept with it.
        let table = slot.attachment.load() as? DerivedCellTable
        let kept = table?.builtCells.map(\.name.description).sorted() ?? []
        if !kept.isEmpty {
          lines.append(overridePrefix + "  ↳ keeps derived " + kept.joined(separator: ", "))
        }
      }
      if hidden > 0 {
        lines.append(childPrefix + "└─ … \(hidden) more below, past the depth limit")
      }
      return lines
    }
  }
}

extension EnvironmentNode.State {
  /// How many children the node has; its lock must be held.
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
