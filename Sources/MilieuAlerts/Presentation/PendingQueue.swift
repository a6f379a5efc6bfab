/// A first-in, first-out queue with O(1) removal at the front and at the back.
struct PendingQueue<Element> {
  private var storage: [Element?] = []
  private var head = 0

  var isEmpty: Bool { head == storage.count }
  var count: Int { storage.count - head }
  var elements: [Element] { storage[head...].compactMap { $0 } }

  mutating func append(_ element: Element) {
    storage.append(element)
  }

  mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head]
    storage[head] = nil
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
