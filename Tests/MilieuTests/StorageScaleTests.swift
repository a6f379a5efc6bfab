import Synchronization
import Testing

@testable import Milieu

// Counts work, which only debug builds do.
#if DEBUG
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

    /// Runs `body` at `size` and at twice that, and returns the work and the bytes of the frames
    /// made at each.
    func workAndMemory(atSizes size: Int, _ body: (Int) -> Void) -> (
      work: (Int, Int), bytes: (Int, Int)
    ) {
      var bytes: [Int] = []
      let work = work(atSizes: size) { size in
        let before = WorkCount.bytesOnThisThread
        body(size)
        bytes.append(WorkCount.bytesOnThisThread - before)
      }
      return (work, (bytes[0], bytes[1]))
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

  extension StorageScaleTests {
    /// A path of nodes, each setting a value of its own: each node's children see every value
    /// above them, which a view holds without copying the values above into each level.
    @Test func aPathOfNodesEachSettingAValueOfItsOwnIsMadeAndReadInLinearWorkAndMemory() {
      let entries = (0..<3_000).map { EnvironmentValues.Entry($0) }
      let (work, bytes) = workAndMemory(atSizes: 1_500) { size in
        let top = EnvironmentNode("top")
        var bottom = top
        for level in 0..<size { bottom = bottom.child { $0[entries[level]] = -level } }
        #expect(bottom.values[entries[0]] == 0 && bottom.values[entries[size - 1]] == 1 - size)
        top.set(\.greeting, to: "Hi")
        #expect(bottom[\.greeting] == "Hi" && bottom.values[entries[size / 2]] == -(size / 2))
      }
      expectLinear(work, "a path of 3,000 nodes, each with a value of its own: work")
      expectLinear(bytes, "a path of 3,000 nodes, each with a value of its own: memory")
    }

    /// One node given values of distinct keys one write at a time: a write does not copy the
    /// values written before it.
    @Test func distinctKeysSetOneByOneOnANodeAreWrittenInLinearWorkAndMemory() {
      let entries = (0..<20_000).map { EnvironmentValues.Entry($0) }
      let (work, bytes) = workAndMemory(atSizes: 10_000) { size in
        let node = EnvironmentNode("node")
        for index in 0..<size { node.set(entries[index], to: index + 1) }
        let values = node.values
        #expect(values[entries[0]] == 1 && values[entries[size - 1]] == size)
      }
      expectLinear(work, "20,000 keys set one by one: work")
      expectLinear(bytes, "20,000 keys set one by one: memory")
    }
  }

  extension EnvironmentNode {
    /// Overrides an entry, for the tests.
    fileprivate func set<Value: Sendable>(_ entry: EnvironmentValues.Entry<Value>, to value: Value)
    {
      update { $0[entry] = value }
    }
  }
#endif
