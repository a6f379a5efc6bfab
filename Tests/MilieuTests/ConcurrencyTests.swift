import Milieu
import Testing

/// A `Sendable` reader that many tasks share.
struct RetriesReader {
  @Environment(\.retries) var retries
}

@Suite struct ConcurrencyTests {
  /// Writers set both halves of a pair to the same number in one update; readers must never see
  /// the halves differ, at the written node or below it.
  @Test func concurrentReadsAreNeverTorn() async {
    let root = EnvironmentNode("root")
    var nodes = [root]
    for index in 0..<64 { nodes.append(nodes[index / 4].child("n\(index)")) }
    let tree = nodes

    let torn = await withTaskGroup(of: Int.self) { group in
      for writer in 0..<4 {
        group.addTask {
          for step in 1...500 {
            let value = writer * 1_000 + step
            tree[(writer * 7 + step) % 8].update {
              $0.pairLeft = value
              $0.pairRight = value
            }
          }
          return 0
        }
      }
      for reader in 0..<8 {
        group.addTask {
          var torn = 0
          for step in 0..<2_000 {
            let values = tree[(reader * 13 + step) % tree.count].values
            if values.pairLeft != values.pairRight { torn += 1 }
          }
          return torn
        }
      }
      return await group.reduce(0, +)
    }
    #expect(torn == 0)
  }

  @Test func wrappersReadConsistentlyWhileWritersChangeTheirNode() async {
    let node = EnvironmentNode("shared").child("leaf")
    let service = node.withCurrent { RetriesReader() }
    let seen = await withTaskGroup(of: Set<Int>.self) { group in
      group.addTask {
        for value in 1...300 { node.parent?.set(\.retries, to: value) }
        return []
      }
      for _ in 0..<4 {
        group.addTask {
          var seen = Set<Int>()
          for _ in 0..<3_000 { seen.insert(service.retries) }
          return seen
        }
      }
      return await group.reduce(into: Set<Int>()) { $0.formUnion($1) }
    }
    #expect(seen.isSubset(of: Set([3] + Array(1...300))))
    #expect(service.retries == 300)
  }
}
