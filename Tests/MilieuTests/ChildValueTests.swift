import Milieu
import Testing

/// The values a `child` closure writes become the child's overrides. These tests check that they
/// behave exactly as overrides written later do: read, explained, replaced, removed, inherited
/// and copied.
@Suite struct ChildValueTests {
  @Test func aChildsFirstValueIsReadAndExplainedLikeAnyOverride() {
    let app = EnvironmentNode("app")
    let line: UInt = #line + 1
    let scope = app.child("scope") { $0.retries = 5 }

    #expect(scope[\.retries] == 5)
    #expect(scope.values.retries == 5)
    #expect(app[\.retries] == 3)
    guard case .override(let origin) = scope.explain(\.retries).source else {
      Issue.record("expected an override, got \(scope.explain(\.retries).source)")
      return
    }
    #expect(origin.fileID == #fileID && origin.line == line && origin.nodeName == "scope")
    #expect(app.treeDescription().contains("retries = 5  (\(#fileID):\(line))"))
  }

  @Test func aKeyTypesValueIsWrittenTheSameWay() {
    let scope = EnvironmentNode().child { $0.requestTimeout = 9 }
    #expect(scope[\.requestTimeout] == 9)
    #expect(scope.explain(\.requestTimeout).description.contains("is 9, set here"))
  }

  @Test func theLastOfSeveralWritesWinsAndEveryValueIsKept() {
    let scope = EnvironmentNode().child {
      $0.retries = 1
      $0.ratio = 2
      $0.retries += 2
      $0.isOn = true
    }
    #expect(scope[\.retries] == 3)
    #expect(scope[\.ratio] == 2)
    #expect(scope[\.isOn])
    #expect(scope.treeDescription().components(separatedBy: "\n").count == 4)
  }

  /// A write replaces the value for the node and what is below it; values read before the
  /// write keep what they read.
  @Test func aWriteReplacesTheValueAndEarlierValuesKeepTheirs() {
    let scope = EnvironmentNode().child { $0.retries = 5 }
    let below = scope.child("below")
    let before = scope.values
    #expect(below[\.retries] == 5)

    scope.set(\.retries, to: 6)

    #expect(scope[\.retries] == 6)
    #expect(below[\.retries] == 6)
    #expect(before.retries == 5)
    #expect(scope.treeDescription().contains("retries = 6"))
    #expect(!scope.treeDescription().contains("retries = 5"))
  }

  @Test func anUpdateKeepsTheValueItDoesNotWrite() {
    let scope = EnvironmentNode().child { $0.retries = 5 }
    scope.update { $0.ratio = 0.25 }
    #expect(scope[\.retries] == 5 && scope[\.ratio] == 0.25)
    scope.removeOverride(\.ratio)
    #expect(scope[\.retries] == 5 && scope[\.ratio] == 0.5)
    scope.removeOverride(\.retries)
    #expect(scope[\.retries] == 3)
    #expect(scope.treeDescription() == "an unnamed node")
  }

  /// Children resolve their values through the node's overrides as one map: the held value
  /// is among them, whether the child has overrides of its own or not.
  @Test func descendantsInheritTheValue() {
    let scope = EnvironmentNode().child { $0.retries = 5 }
    let plain = scope.child()
    let overriding = scope.child { $0.ratio = 1 }
    let grandchild = overriding.child { $0.greeting = "Hi" }
    #expect(plain[\.retries] == 5)
    #expect(overriding[\.retries] == 5 && overriding[\.ratio] == 1)
    #expect(
      grandchild[\.retries] == 5 && grandchild[\.ratio] == 1 && grandchild[\.greeting] == "Hi")
  }

  /// Values copied out of a child's closure read what the closure wrote, and stay as they
  /// were when the child changes.
  @Test func valuesTheClosureKeepsAreIndependentOfTheChild() {
    var kept = EnvironmentValues()
    let scope = EnvironmentNode().child {
      $0.retries = 5
      kept = $0
      $0.retries = 6
    }
    #expect(kept.retries == 5)
    #expect(scope[\.retries] == 6)
    scope.set(\.retries, to: 7)
    #expect(kept.retries == 5)
    #expect(scope[\.retries] == 7)
  }

  /// Values read from one child and written into another child's closure, or into an update,
  /// carry the value over, set where it was written again.
  @Test func anotherNodesValuesWrittenWholeCarryItsValue() {
    let app = EnvironmentNode("app")
    let source = app.child("source") { $0.retries = 5 }
    let line: UInt = #line + 1
    let copy = app.child("copy") { $0 = source.values }
    let updated = EnvironmentNode("updated")
    updated.update { $0 = source.values }

    source.set(\.retries, to: 9)

    #expect(copy[\.retries] == 5)
    #expect(updated[\.retries] == 5)
    guard case .override(let origin) = copy.explain(\.retries).source else {
      Issue.record("expected an override, got \(copy.explain(\.retries).source)")
      return
    }
    #expect(origin.line == line && origin.nodeName == "copy")
  }

  /// A reference is not held by the node (the node would keep it until it is freed): a
  /// replaced or removed object goes at once, as any override's does.
  @Test func aReplacedOrRemovedObjectIsFreedAtOnce() {
    let app = EnvironmentNode("app")
    let (scope, replaced) = {
      let payload = Payload()
      return (app.child { $0.payload = payload }, WeakReference(payload))
    }()
    #expect(scope[\.payload] === replaced.object)
    scope.set(\.payload, to: Payload())
    #expect(replaced.object == nil, "a replaced value is still alive")

    let removed = {
      let payload = Payload()
      let node = app.child {
        $0.retries = 1
        $0.payload = payload
      }
      return (node, WeakReference(payload))
    }()
    removed.0.removeOverride(\.payload)
    #expect(removed.1.object == nil, "a removed value is still alive")
    #expect(removed.0[\.retries] == 1)
  }

  @Test func aChildWithValuesIsFreedWithItsLastReference() {
    let app = EnvironmentNode("app")
    weak var weakScope: EnvironmentNode?
    do {
      let scope = app.child { $0.retries = 5 }
      weakScope = scope
      #expect(scope[\.retries] == 5)
    }
    #expect(weakScope == nil)
    #expect(app.treeDescription() == "node \"app\"")
  }

  /// Readers on several threads see the first value or the replacement, never anything else,
  /// while a writer replaces it; the thread sanitizer checks the accesses.
  @Test func concurrentReadsSeeTheFirstValueOrAReplacement() async {
    let scope = EnvironmentNode().child { $0.retries = 5 }
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for value in 100..<300 { scope.set(\.retries, to: value) }
        return true
      }
      for _ in 0..<3 {
        group.addTask {
          var seen = true
          for _ in 0..<500 {
            let value = scope[\.retries]
            seen = seen && (value == 5 || (100..<300).contains(value))
          }
          return seen
        }
      }
      for await seen in group { #expect(seen) }
    }
    #expect(scope[\.retries] == 299)
  }
}
