import Milieu

/// Reads, writes and scopes of plain values.
enum EnvironmentCases {
  static let all: [CountedCase] = [
    CountedCase("stored property read") { iterations in
      let stored = StoredRetries()
      for _ in 0..<iterations { blackHole(stored.retries) }
    },
    CountedCase("@Environment read, no write since") { iterations in
      let top = EnvironmentNode("top")
      top.set(\.retries, to: 5)
      let service = reader(below: top, depth: 1_000)
      for _ in 0..<iterations { blackHole(service.retries) }
    },
    CountedCase("set on a childless node") { iterations in
      let unrelated = EnvironmentNode("unrelated")
      for iteration in 0..<iterations { unrelated.set(\.retries, to: iteration) }
    },
    CountedCase(
      "@Environment read after a set on an unrelated node", baseline: "set on a childless node"
    ) { iterations in
      let top = EnvironmentNode("top")
      top.set(\.retries, to: 5)
      let service = reader(below: top, depth: 1_000)
      let unrelated = EnvironmentNode("unrelated")
      for iteration in 0..<iterations {
        unrelated.set(\.retries, to: iteration)
        blackHole(service.retries)
      }
    },
    ancestorSet(depth: 10),
    ancestorSet(depth: 1_000),
    firstReadAfterAncestorSet(depth: 10),
    firstReadAfterAncestorSet(depth: 1_000),
    CountedCase("EnvironmentValues read, set") { iterations in
      let node = EnvironmentNode("values")
      node.set(\.retries, to: 5)
      let values = node.values
      for _ in 0..<iterations { blackHole(values.retries) }
    },
    CountedCase("EnvironmentNode.current[\\.x] read, set") { iterations in
      let node = EnvironmentNode("current").child { $0.retries = 5 }
      node.withCurrent {
        for _ in 0..<iterations { blackHole(EnvironmentNode.current[\.retries]) }
      }
    },
    CountedCase("EnvironmentNode.current[\\.x] read, default") { iterations in
      let node = EnvironmentNode("current").child { $0.retries = 5 }
      node.withCurrent {
        for _ in 0..<iterations { blackHole(EnvironmentNode.current[\.timeout]) }
      }
    },
    CountedCase("child with one override, read") { iterations in
      let top = EnvironmentNode("top")
      top.set(\.retries, to: 5)
      for iteration in 0..<iterations {
        let child = top.child { $0.retries = iteration }
        blackHole(child[\.retries])
      }
    },
    CountedCase("child with one override, withCurrent, @Environment read") { iterations in
      let top = EnvironmentNode("top")
      top.set(\.retries, to: 5)
      for iteration in 0..<iterations {
        let child = top.child { $0.retries = iteration }
        blackHole(child.withCurrent { RetriesService().retries })
      }
    },
    CountedCase("TaskLocal withValue, read") { iterations in
      for iteration in 0..<iterations {
        blackHole(Scope.$retries.withValue(iteration) { Scope.retries })
      }
    },
    CountedCase("tree made, one node") { iterations in
      let nodes = tree(nodes: iterations)
      blackHole(nodes)
    },
    CountedCase("tree dump, per node", baseline: "tree made, one node") { iterations in
      let nodes = tree(nodes: iterations)
      blackHole(nodes[0].treeDescription())
      blackHole(nodes)
    },
  ]

  /// A set at the top of a chain with a reader `depth` levels below, which is never read.
  static func ancestorSet(depth: Int) -> CountedCase {
    CountedCase("set above a reader at depth \(depth.formatted)") { iterations in
      let top = EnvironmentNode("top")
      let service = reader(below: top, depth: depth)
      for iteration in 0..<iterations { top.set(\.retries, to: iteration) }
      blackHole(service)
    }
  }

  /// The first read of a reader `depth` levels below a node written just before.
  static func firstReadAfterAncestorSet(depth: Int) -> CountedCase {
    CountedCase(
      "@Environment first read after an ancestor's set, depth \(depth.formatted)",
      baseline: "set above a reader at depth \(depth.formatted)"
    ) { iterations in
      let top = EnvironmentNode("top")
      let service = reader(below: top, depth: depth)
      for iteration in 0..<iterations {
        top.set(\.retries, to: iteration)
        blackHole(service.retries)
      }
    }
  }

  /// A root and `nodes - 1` descendants, ten children per node, each setting a value; the root
  /// first. A parent does not keep its children alive, so the caller keeps them all.
  static func tree(nodes: Int) -> [EnvironmentNode] {
    let root = EnvironmentNode("root")
    var all = [root]
    var made = 1
    var parent = 0
    while made < nodes {
      let child = all[parent].child("node \(made)") { $0.retries = made }
      all.append(child)
      made += 1
      if made % 10 == 0 { parent += 1 }
    }
    return all
  }
}

extension Int {
  /// `1,000` for 1000: how the case names spell depths.
  var formatted: String {
    self >= 1_000 ? "\(self / 1_000),\(String(self % 1_000).leftPadded(to: 3))" : "\(self)"
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: Swift.max(0, length - count)) + self
  }
}
