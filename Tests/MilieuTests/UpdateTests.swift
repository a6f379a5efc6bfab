import Foundation
import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// `update` keeps exactly what its body wrote: no more (a value set elsewhere meanwhile, or only
/// carried along in a copy), no less (a write made to the node while the body ran), whatever
/// addresses the frames it replaced come back at.
@Suite struct UpdateTests {
  /// Two writes to the node from inside the body free the frame the update started from, and
  /// the second write's copy is allocated where it was: both writes are kept all the same.
  @Test func writesMadeToTheNodeWhileTheBodyRunsAreKept() {
    let node = EnvironmentNode("node")
    node.set(\.greeting, to: "Hi")
    node.update { values in
      values.retries = 1
      node.set(\.ratio, to: 0.25)
      node.set(\.isOn, to: true)
    }
    #expect(node[\.retries] == 1)
    #expect(node[\.ratio] == 0.25)
    #expect(node[\.isOn])
    #expect(node[\.greeting] == "Hi")
  }

  /// A removal and a write made to the node while the body runs are kept, the removal too.
  @Test func aRemovalAndAWriteMadeWhileTheBodyRunsAreKept() {
    let node = EnvironmentNode("node")
    node.update {
      $0.greeting = "Hi"
      $0.mode = .careful
    }
    node.update { values in
      values.retries = 1
      node.removeOverride(\.greeting)
      node.set(\.ratio, to: 0.25)
    }
    #expect(node[\.retries] == 1)
    #expect(node[\.ratio] == 0.25)
    #expect(node[\.greeting] == "Hello")
    #expect(node[\.mode] == .careful)
  }

  /// An update that writes more values than its frame has room for keeps what another write
  /// set meanwhile, and `explain` names the update's line only for what it wrote.
  @Test func anUpdateThatGrowsItsFrameWritesOnlyWhatItWrote() {
    let parent = EnvironmentNode("parent")
    let childLine: UInt = #line + 1
    let node = parent.child("node") { $0.retries = 1 }
    let updateLine: UInt = #line + 1
    node.update { values in
      values.greeting = "Hi"
      values.ratio = 0.25
      values.isOn = true
      values.mode = .careful
      values.limit = 7
      node.set(\.requestTimeout, to: 5)
    }
    #expect(node[\.requestTimeout] == 5)
    #expect(line(of: node.explain(\.retries).source) == childLine)
    #expect(line(of: node.explain(\.limit).source) == updateLine)
  }

  /// The same from another thread: while an update that grows its frame runs, another thread
  /// writes a value it never touches, and that write stands.
  @Test func aWriteFromAnotherThreadWhileAnUpdateGrowsItsFrameStands() {
    for round in 0..<20 {
      let node = EnvironmentNode("node").child("node") { $0.retries = 1 }
      let written = Atomic<Bool>(false)
      onThreads(2) { index in
        if index == 0 {
          node.update { values in
            values.greeting = "Hi"
            values.ratio = 0.25
            values.isOn = true
            values.mode = .careful
            waitUntil("the other thread wrote") { written.load(ordering: .acquiring) }
          }
        } else {
          node.set(\.retries, to: 2)
          written.store(true, ordering: .releasing)
        }
      }
      #expect(node[\.retries] == 2, "round \(round)")
      #expect(node[\.mode] == .careful, "round \(round)")
    }
  }

  /// Four threads each update a key of their own over and over, while frames of the same size
  /// are freed and made: every thread's last write is there.
  @Test func updatesOfKeysOfTheirOwnOnFourThreadsAreNeverLost() {
    let keys = (0..<4).map { _ in EnvironmentValues.Entry(0) }
    for round in 0..<30 {
      let node = EnvironmentNode("node")
      onThreads(4) { index in
        for value in 1...1_000 {
          node.update { $0[keys[index]] = value }
        }
      }
      let values = node.values
      #expect(keys.map { values[$0] } == [1_000, 1_000, 1_000, 1_000], "round \(round)")
    }
  }

  /// Values a body copies and hands to another thread are the body's own: the node's frame is
  /// not theirs, so stamping and freezing it races with nothing, and their copy writes freely.
  @Test func valuesTheBodyLetsEscapeAreNotTheNodes() {
    let node = EnvironmentNode("node")
    let escaped = Lock<EnvironmentValues?>(nil, audited: false)
    let stop = Atomic<Bool>(false)
    onThreads(2) { index in
      guard index == 0 else {
        while !stop.load(ordering: .acquiring) {
          guard var copy = escaped.withLock({ $0 }) else { continue }
          copy.greeting = "escaped"
          #expect(copy.retries == 1)
        }
        return
      }
      for value in 1...200 {
        node.update { values in
          values.retries = 1
          values.ratio = Double(value)
          escaped.withLock { $0 = values }
        }
      }
      stop.store(true, ordering: .releasing)
    }
    let own = node.withLockedState { state, _ in state.own }
    let copy = escaped.withLock { $0?.own }
    #expect(own !== copy)
    #expect(node[\.greeting] == "Hello")
  }

  /// Assigning whole values in an update writes every value they hold that the node did not
  /// already see, and leaves the node's other overrides, alone or raced by another write, and
  /// whether or not the values come from a node with children.
  @Test(arguments: [false, true], [false, true])
  func assigningWholeValuesWritesWhatTheyHoldWhateverElseRuns(
    sourceHasAChild: Bool, raced: Bool
  ) {
    let app = EnvironmentNode("app")
    app.set(\.ratio, to: 0.25)
    let source = app.child("source") { $0.greeting = "source" }
    let sourceChild = sourceHasAChild ? source.child("below") : nil
    let node = app.child("node") { $0.retries = 1 }
    node.update { values in
      values = source.values
      if raced { node.set(\.isOn, to: true) }
    }
    #expect(node[\.greeting] == "source")
    #expect(node[\.retries] == 1, "the node's other overrides stay")
    #expect(node[\.isOn] == raced)
    #expect(node[\.ratio] == 0.25)
    // What both inherit from the app stays the app's: a later write there reaches the node.
    app.set(\.ratio, to: 0.75)
    #expect(node[\.ratio] == 0.75)
    withExtendedLifetime(sourceChild) {}
  }

  /// A child whose closure assigns whole values gets every value they hold that its parent's
  /// children do not already see, whether or not they come from a node with children.
  @Test(arguments: [false, true])
  func aChildAssignedWholeValuesOverridesWhatTheyHold(sourceHasAChild: Bool) {
    let app = EnvironmentNode("app")
    app.set(\.ratio, to: 0.25)
    let source = app.child("source") { $0.greeting = "source" }
    let sourceChild = sourceHasAChild ? source.child("below") : nil
    let node = app.child("node") { $0 = source.values }
    #expect(node[\.greeting] == "source")
    app.set(\.ratio, to: 0.75)
    #expect(node[\.ratio] == 0.75)
    withExtendedLifetime(sourceChild) {}
  }

  /// Values assigned whole from a node with a child become the node's own: once the source
  /// writes again and its old frame is freed, the node still names its own update as where they
  /// were written, and reads them as they were.
  @Test func valuesAssignedWholeOutliveTheFramesTheyCameFrom() {
    let app = EnvironmentNode("app")
    var source: EnvironmentNode? = app.child("source") { $0.greeting = "source" }
    var sourceChild = source?.child("below")
    let node = app.child("node")
    let updateLine = #line + 1
    node.update { $0 = source?.values ?? $0 }
    source?.set(\.greeting, to: "later")
    #expect(source?[\.greeting] == "later")
    sourceChild = nil
    source = nil
    // Frames made since take the freed ones' memory.
    let others = (0..<64).map { index in app.child("other \(index)") { $0.greeting = "other" } }
    #expect(node[\.greeting] == "source")
    guard case .override(let origin) = node.explain(\.greeting).source else {
      Issue.record("the node's greeting is not its own override")
      return
    }
    #expect(origin.line == UInt(updateLine))
    #expect(origin.nodeName == "node")
    withExtendedLifetime((others, sourceChild)) {}
  }

  private func line(of source: EnvironmentExplanation.Source) -> UInt? {
    guard case .override(let origin) = source else { return nil }
    return origin.line
  }
}
