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
          prefix: "", childPrefix: "", name: name, overrides: state.own,
          hasChildren: state.hasChildren, hidden: maxDepth > 0 ? 0 : state.childCount))
      guard maxDepth > 0 else { return }
      forEachDescendant(bumpingVersions: false) { node, state, depth in
        let isLast = node.isLastSibling
        let above = childPrefixes[depth - 1]
        childPrefixes.removeSubrange(depth...)
        childPrefixes.append(above + (isLast ? "   " : "│  "))
        let descends = depth < maxDepth
        drawn.append(
          DrawnNode(
            prefix: above + (isLast ? "└─ " : "├─ "), childPrefix: childPrefixes[depth],
            name: node.name, overrides: state.own,
            hasChildren: state.hasChildren, hidden: descends ? 0 : state.childCount))
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
    var overrides: Frame?
    var hasChildren: Bool
    /// Children past the depth limit, counted rather than drawn.
    var hidden: Int

    var lines: [String] {
      var lines = [prefix + EnvironmentNode.displayName(name)]
      let overridePrefix = childPrefix + (hasChildren ? "│  " : "   ")
      guard let overrides else { return lines + hiddenLine }
      let built = overrides.cache?.builtCells ?? []
      let records = overrides.positions.map { (info: overrides.info(at: $0), position: $0) }
      // In the order they were written: a later write has a larger stamp.
      for (info, position) in records.sorted(by: { $0.info.stamp < $1.info.stamp }) {
        let origin = info.origin.map { "  (\($0.location))" } ?? ""
        let overridden = info.anchor is AnyDerived ? "  (overrides a derived value)" : ""
        let value = EnvironmentNode.describe(overrides.anyValue(at: position))
        lines.append(overridePrefix + "\(info.name) = \(value)\(origin)\(overridden)")
        // The derived values built from this override and kept with it.
        let write = Stamped(key: info.key, stamp: info.stamp)
        let kept = built.filter { $0.anchor == write }.map(\.name.description).sorted()
        if !kept.isEmpty {
          lines.append(overridePrefix + "  ↳ keeps derived " + kept.joined(separator: ", "))
        }
      }
      return lines + hiddenLine
    }

    private var hiddenLine: [String] {
      hidden > 0 ? [childPrefix + "└─ … \(hidden) more below, past the depth limit"] : []
    }
  }
}
