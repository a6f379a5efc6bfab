import Testing

@testable import Milieu

/// Defects found by reading the finished frames, each with the test that failed on it.
@Suite struct FrameReviewTests {
  /// A view that grows past one leaf splits into a trie; its records keep the frame that holds
  /// their write, so a value read two levels down still names the node and line that set it.
  @Test func aViewThatSplitsKeepsWhereEachValueWasWritten() throws {
    let entries = (0..<40).map { EnvironmentValues.Entry($0) }
    let parent = EnvironmentNode("parent")
    parent.update { values in
      for index in 0..<20 { values[entries[index]] = index }
    }
    let child = parent.child("child") { values in
      for index in 20..<40 { values[entries[index]] = index }
    }
    let grandchild = child.child("grandchild")
    let values = grandchild.values
    for index in [0, 19, 20, 39] {
      let found = try #require(values.record(for: ObjectIdentifier(entries[index])))
      let origin = found.frame.info(at: found.position).origin
      #expect(origin?.nodeName == (index < 20 ? "parent" : "child"), "entry \(index)")
    }
  }

  /// A child made inside another child's closure takes a scratch frame of its own; when both
  /// give theirs back, the thread keeps one and frees the other, never leaking one.
  @Test func aChildMadeInsideAnotherChildsClosureLeaksNoScratchFrame() {
    weak var inner: FrameBuffer?
    weak var outer: FrameBuffer?
    let parent = EnvironmentNode("parent")
    var nested: EnvironmentNode?
    let child = parent.child("outer") { values in
      values.retries = 1
      outer = values.own?.buffer
      nested = parent.child("inner") { values in
        values.retries = 2
        inner = values.own?.buffer
        #expect(inner != nil && outer != nil && inner !== outer, "two scratch frames out at once")
      }
    }
    #expect([inner, outer].compactMap { $0 }.count == 1, "the thread's slot holds one")
    #expect(child.values.retries == 1 && nested?.values.retries == 2)
  }
}
