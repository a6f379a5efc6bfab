/// Elements that take turns, one at a time: the one whose turn it is, and the others waiting in
/// line.
///
/// Every place that shows one alert at a time is built on it: a host's current item and queue,
/// the terminal's queue shared by the hosts that draw on one terminal, and the alerts an
/// ``ObservableAlertPresenter`` holds for the hosts that share it.
///
/// ```swift
/// var turns = Turns<AlertData>()
/// turns.add(first)   // first has the turn
/// turns.add(second)  // second waits
/// turns.endTurn()    // first is done; nobody has the turn
/// turns.startNext()  // second has it
/// ```
///
/// An element added may go ahead of others (a higher priority) but never ahead of the one whose
/// turn it is. The turn passes only when asked (``startNext()``), so an owner can hold the next
/// element back for a while.
package struct Turns<Element: Identifiable> {
  /// The element whose turn it is.
  package private(set) var current: Element?
  /// The line, from `head`: taken elements leave `nil` behind until the storage is compacted.
  private var line: [Element?] = []
  private var head = 0
  /// The identities of the waiting elements, so that finding one costs no search; a line that is
  /// never used never touches it.
  private var waitingIDs: Set<Element.ID> = []

  package init() {}

  /// How many elements wait.
  package var waitingCount: Int { line.count - head }

  /// The waiting elements, first in line first.
  package var waiting: [Element] { line[head...].compactMap { $0 } }

  /// The element first in line.
  package var first: Element? { waitingCount == 0 ? nil : line[head] }

  /// The element last in line.
  package var last: Element? { waitingCount == 0 ? nil : line[line.count - 1] }

  /// Whether an element with this identity has the turn or waits.
  package func contains(_ id: Element.ID) -> Bool {
    current?.id == id || (!waitingIDs.isEmpty && waitingIDs.contains(id))
  }

  /// The element with this identity, whether it has the turn or waits.
  package func element(_ id: Element.ID) -> Element? {
    if let current, current.id == id { return current }
    guard waitingIDs.contains(id) else { return nil }
    return line[head...].first { $0?.id == id } ?? nil
  }

  /// Gives an element the turn if nobody has it, or else puts it in line.
  ///
  /// - Returns: Whether the element has the turn.
  @discardableResult
  package mutating func add(_ element: consuming Element) -> Bool {
    guard current == nil else {
      enqueue(element)
      return false
    }
    current = element
    return true
  }

  /// Puts an element in line, behind the last waiting element that stays ahead of it; the
  /// elements that stay ahead must come before the others.
  ///
  /// - Complexity: O(1) when the last element stays ahead (the usual case: behind all);
  ///   otherwise O(*n*) in the number of elements the new one goes ahead of, plus the move.
  package mutating func enqueue(
    _ element: consuming Element,
    behindLast staysAhead: (borrowing Element) -> Bool = { _ in true }
  ) {
    waitingIDs.insert(element.id)
    var index = line.count
    // Looked at in place: copying each element out retained everything it holds.
    while index > head, line[index - 1].map(staysAhead) == false {
      index -= 1
    }
    if index == line.count {
      line.append(element)
    } else {
      line.insert(element, at: index)
    }
  }

  /// Ends the turn of the element that has it.
  ///
  /// - Returns: That element.
  @discardableResult
  package mutating func endTurn() -> Element? {
    current.take()
  }

  /// Gives the turn to the element first in line, if nobody has it.
  ///
  /// - Returns: Whether an element was given the turn; it is ``current``.
  @discardableResult
  package mutating func startNext() -> Bool {
    guard current == nil, let next = popFirst() else { return false }
    current = next
    return true
  }

  /// Takes an element out, whether it has the turn or waits; nobody has the turn after taking
  /// the one that had it.
  ///
  /// - Returns: The element and whether it had the turn, or `nil` when no element has the
  ///   identity.
  package mutating func remove(_ id: Element.ID) -> (element: Element, hadTurn: Bool)? {
    if current?.id == id, let taken = current.take() { return (taken, true) }
    guard waitingIDs.contains(id) else { return nil }
    return removeWaiting { $0.id == id }.map { ($0, false) }
  }

  /// Takes the first waiting element that matches out of the line.
  package mutating func removeWaiting(where matches: (Element) -> Bool) -> Element? {
    guard let index = line[head...].firstIndex(where: { $0.map(matches) ?? false }),
      let element = line.remove(at: index)
    else { return nil }
    waitingIDs.remove(element.id)
    if head == line.count { clearLine() }
    return element
  }

  /// Takes the element last in line out.
  package mutating func removeLast() -> Element? {
    guard waitingCount > 0, let element = line.removeLast() else { return nil }
    waitingIDs.remove(element.id)
    if head == line.count { clearLine() }
    return element
  }

  /// Takes the element first in line out.
  package mutating func popFirst() -> Element? {
    guard head < line.count, let element = line[head].take() else { return nil }
    waitingIDs.remove(element.id)
    head += 1
    if head == line.count {
      clearLine()
    } else if head >= 64 && head * 2 >= line.count {
      line.removeFirst(head)
      head = 0
    }
    return element
  }

  /// Takes every element out: the one with the turn first, then the line in order.
  package mutating func removeAll() -> [Element] {
    var all = current.take().map { [$0] } ?? []
    all += waiting
    line = []
    head = 0
    waitingIDs = []
    return all
  }

  private mutating func clearLine() {
    line.removeAll(keepingCapacity: true)
    head = 0
  }
}

extension Turns: Sendable where Element: Sendable, Element.ID: Sendable {}
