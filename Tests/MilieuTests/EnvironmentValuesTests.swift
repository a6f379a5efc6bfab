import Milieu
import Testing

@Suite struct EnvironmentValuesTests {
  @Test func unsetValuesReadTheirDefaults() {
    let values = EnvironmentValues()
    #expect(values.retries == 3)
    #expect(values.greeting == "Hello")
    #expect(values.requestTimeout == 30)
  }

  @Test func entriesAndKeysStoreValues() {
    var values = EnvironmentValues()
    values.retries = 9
    values.requestTimeout = 5
    #expect(values.retries == 9)
    #expect(values.requestTimeout == 5)
    #expect(values.greeting == "Hello")
  }

  @Test func copiesAreIndependent() {
    var original = EnvironmentValues()
    original.retries = 1
    var copy = original
    copy.retries = 2
    #expect(original.retries == 1)
    #expect(copy.retries == 2)
  }

  /// Past one value, values move to a table, and past eight the table keeps an index: every
  /// size reads back what was written, and a copy taken along the way keeps its own values.
  @Test func manyValuesStayDistinctReplaceableAndCopyOnWrite() {
    let entries = (0..<20).map { EnvironmentValues.Entry($0) }
    var values = EnvironmentValues()
    var copies: [EnvironmentValues] = []
    for (index, entry) in entries.enumerated() {
      values[entry] = index * 10
      copies.append(values)
    }
    for (index, entry) in entries.enumerated() where index.isMultiple(of: 3) {
      values[entry] = -index
    }
    for (index, entry) in entries.enumerated() {
      #expect(values[entry] == (index.isMultiple(of: 3) ? -index : index * 10))
      // The copy taken after writing entry `size - 1` holds exactly the first `size` values.
      for (size, copy) in copies.enumerated() {
        #expect(copy[entry] == (index <= size ? index * 10 : index))
      }
    }
  }

  @Test func entriesWithTheSameNameInDifferentTypesDoNotCollide() {
    var values = EnvironmentValues()
    values.billingLimit = 1
    #expect(values.billingLimit == 1)
    #expect(values.storageLimit == 100)
    values.storageLimit = 2
    #expect(values.billingLimit == 1)
    #expect(values.storageLimit == 2)
  }

  @Test func aKeyDefaultIsComputedOnceWhateverTheNumberOfMisses() async {
    // Other tests in this process never read `counted`, so the count starts at zero.
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<100 { #expect(EnvironmentValues().counted == 7) }
        }
      }
    }
    #expect(EnvironmentNode("fresh")[\.counted] == 7)
    #expect(countingDefaultCalls.load(ordering: .relaxed) == 1)
  }
}
