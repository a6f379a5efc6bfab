import Synchronization
import Testing

@testable import Milieu

/// The storage at sizes far past what a program sets: each test does its work at two sizes, one
/// twice the other, and checks that the work Milieu counts (records copied and probed, nodes
/// walked and resolved, reads recorded, inputs checked: `WorkCount`) at most a little more than
/// doubles. Counted, not timed.
@Suite struct StorageScaleTests {
  /// Runs `body` at `size` and at twice that, and returns the work of each.
  func work(atSizes size: Int, _ body: (Int) -> Void) -> (Int, Int) {
    let counts = [size, size * 2].map { size in
      let before = WorkCount.onThisThread
      body(size)
      return WorkCount.onThisThread - before
    }
    return (counts[0], counts[1])
  }

  /// What twice the size may cost: twice the work, and a little more, as an index's probes
  /// depend on where the keys' objects were allocated. A quadratic path costs four times.
  func expectLinear(_ counts: (Int, Int), _ what: String) {
    #expect(counts.0 > 0, "\(what): no work was counted")
    #expect(
      Double(counts.1) <= Double(counts.0) * 2.5,
      "\(what): \(counts.0) steps, then \(counts.1) at twice the size")
  }

  @Test func aNodeWithTenThousandOverridesIsReadAndWrittenInLinearWork() {
    let entries = (0..<10_000).map { EnvironmentValues.Entry($0) }
    let counts = work(atSizes: 5_000) { size in
      let node = EnvironmentNode("wide values")
      node.update { values in
        for index in 0..<size { values[entries[index]] = index + 1 }
      }
      let values = node.values
      for index in 0..<size { #expect(values[entries[index]] == index + 1) }
      node.set(\.retries, to: 9)
      let child = node.child("child") { $0[entries[0]] = -1 }
      #expect(child.values[entries[size - 1]] == size && child.values[entries[0]] == -1)
    }
    expectLinear(counts, "10,000 overrides")
  }

  @Test func keysOfTenThousandEntriesAreReadInLinearWork() {
    let entries = (0..<10_000).map { EnvironmentValues.Entry("default \($0)") }
    let counts = work(atSizes: 5_000) { size in
      var values = EnvironmentValues()
      for index in stride(from: 0, to: size, by: 2) { values[entries[index]] = "set \(index)" }
      for index in 0..<size {
        let expected = index.isMultiple(of: 2) ? "set \(index)" : "default \(index)"
        #expect(values[entries[index]] == expected)
      }
    }
    expectLinear(counts, "10,000 keys")
  }

  @Test func aTreeAHundredThousandDeepIsReadWrittenAndFreedInLinearWork() {
    let counts = work(atSizes: 50_000) { size in
      let top = EnvironmentNode("top")
      var bottom = top
      for level in 0..<size { bottom = bottom.child { $0.retries = level } }
      #expect(bottom[\.retries] == size - 1)
      top.set(\.greeting, to: "Hi")
      #expect(bottom[\.greeting] == "Hi" && bottom[\.retries] == size - 1)
    }
    expectLinear(counts, "a deep tree")
  }

  @Test func aTreeAHundredThousandWideIsReadWrittenAndFreedInLinearWork() {
    let counts = work(atSizes: 50_000) { size in
      let top = EnvironmentNode("top")
      let children = (0..<size).map { index in top.child { $0.retries = index } }
      for (index, child) in children.enumerated() { #expect(child[\.retries] == index) }
      top.set(\.greeting, to: "Hi")
      #expect(children.allSatisfy { $0[\.greeting] == "Hi" })
    }
    expectLinear(counts, "a wide tree")
  }
}

extension EnvironmentNode {
  /// Overrides an entry, for the tests.
  fileprivate func set<Value: Sendable>(_ entry: EnvironmentValues.Entry<Value>, to value: Value) {
    update { $0[entry] = value }
  }
}
