import Milieu
import Testing

@Suite struct EnvironmentNodeTests {
  @Test func aChildInheritsAndOverridesForItsSubtreeOnly() {
    let root = EnvironmentNode("root")
    root.set(\.retries, to: 4)
    let left = root.child("left") { $0.retries = 5 }
    let right = root.child("right")
    let leftLeaf = left.child("left leaf")

    #expect(root[\.retries] == 4)
    #expect(left[\.retries] == 5)
    #expect(leftLeaf[\.retries] == 5)
    #expect(right[\.retries] == 4)
  }

  @Test func overridesShadowAtDepth() {
    let root = EnvironmentNode()
    var node = root
    for depth in 1...200 {
      node = node.child { if depth.isMultiple(of: 50) { $0.retries = depth } }
      #expect(node[\.retries] == (depth < 50 ? 3 : depth - depth % 50))
    }
  }

  @Test func aLateChangeIsSeenByDescendantsButNotByAncestorsOrSiblings() {
    let root = EnvironmentNode("root")
    let middle = root.child("middle")
    let sibling = root.child("sibling")
    let leaf = middle.child("leaf")
    // Read everything once so every cache is warm.
    #expect(
      [root, middle, sibling, leaf].map { $0[\.greeting] } == Array(repeating: "Hello", count: 4))

    middle.set(\.greeting, to: "Hi")

    #expect(root[\.greeting] == "Hello")
    #expect(sibling[\.greeting] == "Hello")
    #expect(middle[\.greeting] == "Hi")
    #expect(leaf[\.greeting] == "Hi")
  }

  @Test func childConfigurationSeesTheParentValues() {
    let root = EnvironmentNode()
    root.set(\.retries, to: 10)
    let child = root.child { $0.retries += 1 }
    #expect(child[\.retries] == 11)
    #expect(root[\.retries] == 10)
  }

  @Test func removingAnOverrideRevealsTheParentValue() {
    let root = EnvironmentNode()
    root.set(\.retries, to: 6)
    let child = root.child { $0.retries = 7 }
    #expect(child[\.retries] == 7)
    child.removeOverride(\.retries)
    #expect(child[\.retries] == 6)
  }

  @Test func removingOneOfSeveralOverridesKeepsTheOthers() {
    let root = EnvironmentNode()
    root.update {
      $0.retries = 7
      $0.greeting = "Hi"
      $0.pairLeft = 1
      $0.pairRight = 2
    }
    let child = root.child { $0.greeting = "Yo" }
    root.removeOverride(\.greeting)
    #expect(root[\.greeting] == "Hello")
    #expect(root[\.retries] == 7 && root[\.pairLeft] == 1 && root[\.pairRight] == 2)
    #expect(child[\.greeting] == "Yo" && child[\.retries] == 7)
  }

  @Test func anUpdateWritesSeveralValuesAsOne() {
    let root = EnvironmentNode()
    root.update {
      $0.pairLeft = 1
      $0.pairRight = 1
    }
    let values = root.values
    #expect(values.pairLeft == 1 && values.pairRight == 1)
  }

  @Test func anUpdateThatThrowsWritesNothing() {
    struct Refused: Error {}
    let root = EnvironmentNode()
    #expect(throws: Refused.self) {
      try root.update { values throws(Refused) in
        values.retries = 99
        throw Refused()
      }
    }
    #expect(root[\.retries] == 3)
  }

  @Test func nodesKeepTheirNames() {
    #expect(EnvironmentNode("app").name == "app")
    #expect(EnvironmentNode().name == nil)
    #expect(EnvironmentNode("app").child("sheet").name == "sheet")
  }

  @Test func printingANodeShowsItsName() {
    let sheet = EnvironmentNode("app").child("sheet")
    #expect(String(describing: sheet) == #"node "sheet""#)
    #expect(String(describing: EnvironmentNode()) == "an unnamed node")
    #expect(String(reflecting: sheet) == #"EnvironmentNode("sheet")"#)
    #expect(String(reflecting: EnvironmentNode()) == "EnvironmentNode(unnamed)")
    #expect(String(reflecting: EnvironmentNode("say \"hi\"")) == #"EnvironmentNode("say \"hi\"")"#)
    #expect("\(sheet)" == #"node "sheet""#)
  }

  @Test func aReadAtDepthTenThousandSeesTheRootAndAChangeAtTheRoot() {
    let root = EnvironmentNode()
    var node = root
    for _ in 0..<10_000 { node = node.child() }
    #expect(node[\.retries] == 3)
    root.set(\.retries, to: 8)
    #expect(node[\.retries] == 8)
    #expect(node.parent?.parent != nil)
  }
}
