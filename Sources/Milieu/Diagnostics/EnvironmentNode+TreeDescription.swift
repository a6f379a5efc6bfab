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

  /// Appends this node's lines, holding its lock while it visits its children.
  ///
  /// Locks are taken from the top down and each is held until the subtree below it is drawn:
  /// that keeps every child alive while it is visited (a child unlinks itself under its
  /// parent's lock before it is freed).
  private func describeSubtree(
    into lines: inout [String], prefix: String, childPrefix: String, depth: Int, maxDepth: Int
  ) {
    state.withLock { state in
      lines.append(prefix + Self.displayName(name))
      var children: [Unmanaged<EnvironmentNode>] = []
      var cursor = state.firstChild
      while let child = cursor {
        children.append(child)
        cursor = child._withUnsafeGuaranteedRef { $0.nextSibling }
      }
      let overridePrefix = childPrefix + (children.isEmpty ? "   " : "│  ")
      let overrides = state.overrides.slots.sorted {
        ($0.origin?.serial ?? 0) < ($1.origin?.serial ?? 0)
      }
      for slot in overrides {
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
}
