/// A list that keeps its first two elements in place and the rest in an array: what a read or a
/// write gathers, one or two nodes or frames almost always, without an allocation.
struct SmallList<Element> {
  private var first: Element?
  private var second: Element?
  private var rest: [Element] = []

  init() {}

  mutating func append(_ element: Element) {
    if first == nil {
      first = element
    } else if second == nil {
      second = element
    } else {
      rest.append(element)
    }
  }

  /// Calls `body` with each element, last first, until it returns false.
  func reversedForEach(_ body: (Element) -> Bool) {
    for element in rest.reversed() where !body(element) { return }
    if let second, !body(second) { return }
    if let first { _ = body(first) }
  }

  /// How many elements the list holds.
  var count: Int { (first == nil ? 0 : second == nil ? 1 : 2) + rest.count }

  var isEmpty: Bool { first == nil }
}

extension SmallList where Element: Equatable {
  func contains(_ element: Element) -> Bool {
    first == element || second == element || !rest.isEmpty && rest.contains(element)
  }
}
