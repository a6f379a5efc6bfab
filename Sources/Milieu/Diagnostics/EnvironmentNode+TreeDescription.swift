extension EnvironmentNode {
  /// Draws this node and its subtree: each node's name, then its overrides with their origins.
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
    var lines: [String] = []
    describeSubtree(into: &lines, prefix: "", childPrefix: "", depth: 0, maxDepth: maxDepth)
    return lines.joined(separator: "\n")
  }

  /// Appends this node's lines, then its children's.
  ///
  /// The children are found under this node's lock and pinned before it is let go, as a
  /// write's walk does: a child whose last reference goes meanwhile waits in its `deinit` until
  /// the drawing is done with it. So no lock is held while values are described, which runs
  /// their `description`, code Milieu does not control.
  private func describeSubtree(
    into lines: inout [String], prefix: String, childPrefix: String, depth: Int, maxDepth: Int
  ) {
    var children: [Unmanaged<EnvironmentNode>] = []
    let overrides = withState { state in
      Self.pinChildren(of: state, into: &children)
      return state.overrides(of: self).slots
    }
    defer {
      for child in children { child._withUnsafeGuaranteedRef { $0.unpin() } }
    }
    lines.append(prefix + Self.displayName(name))
    let overridePrefix = childPrefix + (children.isEmpty ? "   " : "│  ")
    let byWrite = overrides.sorted { ($0.origin?.serial ?? 0) < ($1.origin?.serial ?? 0) }
    for slot in byWrite {
      let origin = slot.origin.map { "  (\($0.location))" } ?? ""
      lines.append(overridePrefix + "\(slot.name) = \(Self.describe(slot.anyValue))\(origin)")
    }
    guard depth < maxDepth else {
      if !children.isEmpty {
        lines.append(childPrefix + "└─ … \(children.count) more below, past the depth limit")
      }
      return
    }
    for (index, child) in children.enumerated() {
      let isLast = index == children.count - 1
      child._withUnsafeGuaranteedRef {
        $0.describeSubtree(
          into: &lines, prefix: childPrefix + (isLast ? "└─ " : "├─ "),
          childPrefix: childPrefix + (isLast ? "   " : "│  "), depth: depth + 1,
          maxDepth: maxDepth)
      }
    }
  }
}
