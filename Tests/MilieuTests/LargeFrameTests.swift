import Testing

@testable import Milieu

/// Nodes and values of more than one leaf's worth of records (`Frame.leafLimit`, 32): every path
/// that copies, merges, removes from or lays over such a frame, and where each record says it was
/// written.
@Suite struct LargeFrameTests {
  /// Forty entries of their own, so that a frame of them is a trie.
  static let entries = (0..<40).map { EnvironmentValues.Entry($0) }

  /// A node named `name` that overrides the first `count` entries, each with its index plus
  /// `offset`, in one update.
  static func node(_ name: String, setting count: Int = 40, offset: Int = 0) -> EnvironmentNode {
    let node = EnvironmentNode(name)
    node.update { values in
      for index in 0..<count { values[entries[index]] = index + offset }
    }
    return node
  }

  /// The line an explanation of entry `index` at `node` names.
  static func line(of index: Int, at node: EnvironmentNode) -> UInt? {
    guard case .override(let origin) = node.explain(\.[large: index]).source else { return nil }
    return origin.line
  }

  @Test func aNodeOfFortyOverridesRemovesOneAndKeepsTheRest() {
    let node = Self.node("node")
    node.removeOverride(\.[large: 7])
    #expect(node[\.[large: 7]] == 7 && node.explain(\.[large: 7]).source == .defaultValue)
    #expect((0..<40).filter { $0 != 7 }.allSatisfy { node[\.[large: $0]] == $0 })
    #expect(node.withLockedState { state, _ in state.own?.count } == 39)
  }

  @Test func anUpdateOfFortyValuesRacedByAWriteKeepsBoth() {
    let node = Self.node("node", setting: 35)
    node.update { values in
      for index in 30..<40 { values[Self.entries[index]] = 100 + index }
      // Another write reaches the node while the body runs: the update lays its writes over it.
      node.set(\.retries, to: 9)
    }
    #expect(node[\.retries] == 9)
    #expect((0..<30).allSatisfy { node[\.[large: $0]] == $0 })
    #expect((30..<40).allSatisfy { node[\.[large: $0]] == 100 + $0 })
  }

  /// A write to a copy of a large node's values names the copy's line for what it wrote, and
  /// leaves the line of every record of the node it copied.
  @Test func aWriteToACopyOfALargeNodesValuesLeavesThatNodesLines() throws {
    let source = Self.node("source")
    let sourceLine = try #require(Self.line(of: 0, at: source))
    let copy = EnvironmentNode("copy")
    let copyLine: UInt = #line + 1
    copy.update {
      $0 = source.values
      $0.retries = 1
    }
    #expect(Self.line(of: 0, at: source) == sourceLine)
    #expect((0..<40).allSatisfy { Self.line(of: $0, at: source) == sourceLine })
    #expect(copy.explain(\.retries).description.contains("LargeFrameTests.swift:\(copyLine)"))
  }

  /// A merged update that takes a node past one leaf leaves a frame of at most a leaf's records
  /// per leaf, so a later write copies a few records, not all of them.
  @Test func aMergedUpdatePastOneLeafLeavesNoLeafLargerThanALeaf() throws {
    let node = Self.node("node", setting: 20)
    node.update { values in
      for index in 20..<40 { values[Self.entries[index]] = index }
      node.set(\.retries, to: 1)
    }
    let own = try #require(node.withLockedState { state, _ in state.own })
    #expect(own.isBranch, "41 records are a trie")
    own.forEachLeafCount { #expect($0 <= Frame.leafLimit) }
    #if DEBUG
      // 1,500 writes to it cost what they cost a node given the same values at once.
      let fresh = Self.node("fresh")
      fresh.set(\.retries, to: 1)
      func work(writingTo node: EnvironmentNode) -> Int {
        let before = WorkCount.onThisThread
        for round in 0..<1_500 { node.set(\.[large: round % 40], to: round) }
        return WorkCount.onThisThread - before
      }
      let (merged, given) = (work(writingTo: node), work(writingTo: fresh))
      #expect(Double(merged) <= 1.5 * Double(given), "\(merged) against \(given)")
    #endif
  }

  /// A node with a child and more than a leaf of overrides keeps its records through a write
  /// above it that replaces an input of a value kept with it.
  @Test func aWriteAboveANodeOfFortyOverridesThatKeepsAValueStands() {
    let app = EnvironmentNode("app")
    app.set(\.greeting, to: "app")
    let feature = app.child("feature") { values in
      for index in 0..<40 { values[Self.entries[index]] = index }
    }
    let summary = EnvironmentValues.Derived { values in
      "\(values.greeting) \(values[Self.entries[39]])"
    }
    #expect(feature.values[summary] == "app 39")
    app.set(\.greeting, to: "changed")
    #expect(feature.values[summary] == "changed 39")
    #expect((0..<40).allSatisfy { feature[\.[large: $0]] == $0 })
  }
}

extension Frame {
  /// Calls `body` with the count of every leaf of this frame.
  func forEachLeafCount(_ body: (Int) -> Void) {
    guard let children = header(\.children) else { return body(Int(header(\.count))) }
    for child in children { child?.forEachLeafCount(body) }
  }
}

extension EnvironmentValues {
  /// The large-frame tests' entry `index`, as a key path can name it.
  subscript(large index: Int) -> Int {
    get { self[LargeFrameTests.entries[index]] }
    set { self[LargeFrameTests.entries[index]] = newValue }
  }
}
