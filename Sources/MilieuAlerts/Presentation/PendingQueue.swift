/// A first-in, first-out queue with O(1) removal at the front and at the back, and insertion in
/// the middle for items that go ahead of others.
struct PendingQueue<Element> {
  private var storage: [Element?] = []
  private var head = 0

  var isEmpty: Bool { head == storage.count }
  var count: Int { storage.count - head }
  var elements: [Element] { storage[head...].compactMap { $0 } }

  /// The element that leaves last.
  var last: Element? { isEmpty ? nil : storage[storage.count - 1] }

  /// The element that leaves first.
  var first: Element? { isEmpty ? nil : storage[head] }

  mutating func append(_ element: Element) {
    storage.append(element)
  }

  /// Inserts an element right behind the last one that stays ahead of it; the elements that
  /// stay ahead must come before the others.
  ///
  /// - Complexity: O(1) when the last element stays ahead (appending); otherwise O(*n*) in the
  ///   number of elements that the new one goes ahead of, plus the move.
  mutating func insert(_ element: Element, behindLast staysAhead: (borrowing Element) -> Bool) {
    var index = storage.count
    // Looked at in place: copying each element out retained everything it holds.
    while index > head, storage[index - 1].map(staysAhead) == false {
      index -= 1
    }
    if index == storage.count {
      storage.append(element)
    } else {
      storage.insert(element, at: index)
    }
  }

  mutating func popLast() -> Element? {
    guard !isEmpty else { return nil }
    let element = storage.removeLast()
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    }
    return element
  }

  mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head].take()
    head += 1
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64 && head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return element
  }

  /// Removes and returns the first element that matches, keeping the order of the rest.
  mutating func remove(where matches: (Element) -> Bool) -> Element? {
    guard let index = storage[head...].firstIndex(where: { $0.map(matches) ?? false }) else {
      return nil
    }
    let element = storage.remove(at: index)
    return element
  }

  mutating func removeAll() -> [Element] {
    let all = elements
    storage.removeAll()
    head = 0
    return all
  }
}

extension PendingQueue: Sendable where Element: Sendable {}
