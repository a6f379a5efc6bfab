import Milieu

// The host's state and how each call changes it. Every function here runs under the host's
// lock and only records what follows from the change — presenting, withdrawing, resolving,
// events, expiries — as effects, which `mutate` delivers once the lock is released.

extension PresentationHost {
  struct State: Sendable {
    var current: Showing?
    var pending = PendingQueue<Showing>()
    var keys: [String: PresentationID] = [:]
    /// The identities of the waiting items, so that showing one of them again is found without
    /// a search; the current item's is compared directly, and a host that shows one item at a
    /// time never touches the set.
    var pendingIDs: Set<PresentationID> = []
    /// The effects queued for delivery.
    var effects: [Effect] = []
    /// An empty buffer with capacity, which becomes `effects` when a delivery takes the queued
    /// ones: the two buffers trade places, so queueing an effect does not allocate an array.
    var spareEffects: [Effect] = []
    var isDelivering = false
    var subscribers: [Int: Subscriber] = [:]
    var nextSubscriber = 0
    /// The tasks that expire items with a lifetime, cancelled when the item resolves first.
    var expiries: [PresentationID: Task<Void, Never>] = [:]
  }

  /// What became of a showing the host was given.
  enum Admission {
    /// Shown or queued.
    case handled
    /// Made current while nothing else was to be delivered: the caller presents it, then
    /// delivers what was queued meanwhile (see `PresentationHost.finishDelivering()`).
    case presentNow
    /// Shown or queued, or not, and a showing dropped for the reason given: the new one, or
    /// the one it replaced or pushed out of a full queue. The caller resolves it, after its
    /// effects; `.duplicate(of:)` its own identity means the same value is current or waiting.
    case dropped(Showing, DropReason)
  }
}

extension PresentationHost.State {
  /// Takes a new showing out of `showing`: makes it current, queues it, or drops it, by the
  /// policy. Taken, so that it is moved, not copied, into the state.
  mutating func admit(
    _ showing: inout PresentationHost.Showing?, policy: PresentationPolicy
  ) -> PresentationHost.Admission {
    guard let entry = showing.take() else { preconditionFailure("a showing is admitted once") }
    let item = entry.item
    // One value shown twice would be two showings with one identity: an answer to either
    // would answer both.
    if isShownOrWaiting(item.id) {
      return drop(entry, .duplicate(of: item.id))
    }
    if policy.deduplicates, let key = item.deduplicationKey, let original = keys[key] {
      return drop(entry, .duplicate(of: original))
    }
    guard current != nil else {
      // The usual case, an idle host that nobody watches, skips the queue of effects: it would
      // hold only the presentation, for the caller to deliver at once.
      if !isDelivering, effects.isEmpty, subscribers.isEmpty, item.timedLifetime == nil {
        remember(item)
        current = consume entry
        isDelivering = true
        return .presentNow
      }
      post(.enqueued(item))
      makeCurrent(consume entry)
      return .handled
    }
    switch policy.whenBusy {
    case .dropNew:
      return drop(entry, .busy)
    case .replace:
      post(.enqueued(item))
      var admission = PresentationHost.Admission.handled
      if let replaced = current.take() {
        takeDown(replaced.item)
        admission = drop(replaced, .replaced(by: item.id))
      }
      makeCurrent(consume entry)
      return admission
    case .enqueue:
      let priority = item.priority
      var admission = PresentationHost.Admission.handled
      if pending.count >= policy.maximumPending {
        guard let overflowed = makeRoom(for: priority, overflow: policy.overflow) else {
          return drop(entry, .queueFull(limit: policy.maximumPending))
        }
        forget(overflowed.item)
        admission = drop(overflowed, .queueFull(limit: policy.maximumPending))
      }
      remember(item)
      // Behind every waiting item of the same or a higher priority: with one priority, the end.
      pending.insert(consume entry) { $0.item.priority >= priority }
      pendingIDs.insert(item.id)
      post(.enqueued(item))
      return admission
    }
  }

  /// Takes out of a full queue the waiting item that the overflow rule drops for a newcomer of
  /// `priority`, or returns `nil` when the rule drops the newcomer.
  ///
  /// The item dropped has the lowest priority among the waiting ones and the newcomer: the
  /// newest of them for ``PresentationPolicy/Overflow/dropNew``, the oldest for
  /// ``PresentationPolicy/Overflow/dropOldest``. The queue is in presentation order, so the
  /// lowest priority is at its end.
  private mutating func makeRoom(
    for priority: PresentationPriority, overflow: PresentationPolicy.Overflow
  ) -> PresentationHost.Showing? {
    guard let last = pending.last else { return nil }
    let lowest = last.item.priority
    switch overflow {
    case .dropNew:
      guard priority > lowest else { return nil }
      guard let newest = pending.popLast() else { return nil }
      pendingIDs.remove(newest.item.id)
      return newest
    case .dropOldest:
      guard priority >= lowest else { return nil }
      if let first = pending.first, first.item.priority == lowest { return popFirstPending() }
      guard let oldest = pending.remove(where: { $0.item.priority == lowest }) else { return nil }
      pendingIDs.remove(oldest.item.id)
      return oldest
    }
  }

  /// Takes the answer to the current item, checking that it is current and that the answer is
  /// its own, then makes the next item current.
  ///
  /// - Returns: The answered showing, whose outcome the caller delivers.
  mutating func takeAnswered(
    _ item: Item, with answer: Item.Answer?
  ) throws(PresentationError) -> PresentationHost.Showing {
    // Taken out, not copied, and put back if the answer is refused.
    guard let shown = current.take() else {
      throw .notCurrent(item.id, title: item.title, current: nil)
    }
    guard shown.item.id == item.id else {
      let id = shown.item.id
      current = shown
      throw .notCurrent(item.id, title: item.title, current: id)
    }
    // Checked in place: `if let` copied the answer out through its type's value witnesses.
    if answer.map(shown.item.isValid) == false {
      current = shown
      throw .invalidAnswer("\(answer.map { "\($0)" } ?? "")", item: item.id, title: item.title)
    }
    // Marked under the lock, so that a cancellation cannot come between the answer and the
    // mark. If the awaiting task was cancelled first, the item is resolved already and its
    // withdrawal is on its way: the answer is refused, as it would be a moment later.
    if let resolution = shown.resolution, !resolution.markAnswered() {
      current = shown
      throw .notCurrent(item.id, title: item.title, current: nil)
    }
    forget(shown.item)
    stopExpiry(of: shown.item)
    post(answer.map { .answered(shown.item, $0) } ?? .dismissed(shown.item))
    presentNext()
    return shown
  }

  /// Takes an item away, shown or waiting, as cancelled.
  ///
  /// - Returns: The showing taken away, for the caller to resolve after its effects.
  mutating func withdraw(_ id: PresentationID) -> PresentationHost.Showing? {
    if current?.item.id == id, let shown = current.take() {
      takeDown(shown.item)
      post(.dropped(shown.item, .cancelled))
      presentNext()
      return shown
    } else if pendingIDs.remove(id) != nil,
      let waiting = pending.remove(where: { $0.item.id == id })
    {
      forget(waiting.item)
      post(.dropped(waiting.item, .cancelled))
      return waiting
    }
    return nil
  }

  /// Takes an item that was current off the screen without an answer.
  private mutating func takeDown(_ item: Item) {
    forget(item)
    stopExpiry(of: item)
    effects.append(.withdraw(item))
  }

  /// Queues an event, if anyone subscribes to events: with no subscriber, the event is not even
  /// made.
  mutating func post(_ event: @autoclosure () -> PresentationEvent<Item>) {
    if !subscribers.isEmpty { effects.append(.event(event())) }
  }

  private mutating func makeCurrent(_ entry: consuming PresentationHost.Showing) {
    remember(entry.item)
    show(consume entry)
  }

  private mutating func presentNext() {
    if let next = popFirstPending() { show(next) }
  }

  private mutating func show(_ entry: consuming PresentationHost.Showing) {
    let item = entry.item
    current = consume entry
    post(.presented(item))
    effects.append(.present(item))
    if let lifetime = item.timedLifetime {
      effects.append(.expire(item, after: lifetime))
    }
  }

  /// Tells of a showing dropped unanswered; the caller of the change resolves it.
  private mutating func drop(
    _ entry: PresentationHost.Showing, _ reason: DropReason
  ) -> PresentationHost.Admission {
    post(.dropped(entry.item, reason))
    return .dropped(entry, reason)
  }

  /// Whether an item with this identity is current or waiting.
  @inline(__always)
  private func isShownOrWaiting(_ id: PresentationID) -> Bool {
    current?.item.id == id || (!pendingIDs.isEmpty && pendingIDs.contains(id))
  }

  /// Takes the first waiting item out of the queue.
  private mutating func popFirstPending() -> PresentationHost.Showing? {
    guard let first = pending.popFirst() else { return nil }
    pendingIDs.remove(first.item.id)
    return first
  }

  private mutating func remember(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == nil { keys[key] = item.id }
  }

  /// Forgets the deduplication key of an item that leaves the host.
  private mutating func forget(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == item.id { keys[key] = nil }
  }
}
