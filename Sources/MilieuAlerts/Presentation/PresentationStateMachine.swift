import Milieu

/// Everything a ``PresentationHost`` holds — the item shown, the items waiting, who listens —
/// with every transition it makes and the calls each transition asks for.
///
/// A value: the host keeps it under its lock and changes it only in its `mutate`, one transition
/// at a time. A transition runs no user code and calls nobody. It changes the state, queues the
/// calls its change leads to (presenting, withdrawing, events, expiries), and returns what else
/// is for its caller to do once the lock is let go: the outcome of an item it answered or
/// dropped, which the caller delivers and releases.
///
/// **The delivering hand-off.** Queued calls are made in the order they were queued, one thread
/// at a time, with no lock held. After each transition its caller asks for the queued calls
/// (``takeDelivery(by:)``): it gets them, and becomes the deliverer, unless another thread is
/// the deliverer; that thread, when it has made its calls, takes what was queued meanwhile
/// (``finishDelivery(by:returning:)``), until none is left, and then stops being the deliverer.
/// So, once the lock is let go, queued calls always have a thread to make them: the state is
/// either delivering or has nothing queued. Debug builds assert this after every transition, and
/// that only the deliverer finishes a delivery. Outcomes are never queued: a caller never hands
/// another thread user code that may block.
struct PresentationStateMachine<Item: Presentable>: Sendable {
  /// One showing of an item: what answers it, and where its problems are reported.
  struct Showing: Identifiable, Sendable {
    let item: Item
    let resolution: Resolution<Item.Answer>?
    /// Where a presenter's reports about the item go: the `issueReporter` of the node it was
    /// shown from, read when it was shown. `nil` for the root, whose reporter is read when a
    /// presenter asks, and for a host without a presenter, which reports to the node of the
    /// code that answers it.
    let reporter: IssueReporter?

    var id: PresentationID { item.id }
  }

  /// A call the host makes with no lock held, in order.
  enum Call: Sendable {
    case present(Item)
    case withdraw(Item)
    case event(PresentationEvent<Item>)
    /// Starts timing an item's lifetime.
    case expire(Item, after: Duration)
    /// Stops timing the lifetime of an item that left before it expired.
    case cancelExpiry(Task<Void, Never>)
  }

  typealias Subscriber = AsyncStream<PresentationEvent<Item>>.Continuation

  /// Calls handed to a deliverer, in order, and the subscribers their events go to.
  typealias Delivery = (calls: [Call], subscribers: [Subscriber])

  /// What became of a showing the host was given.
  enum Admission: Sendable {
    /// Shown or queued.
    case handled
    /// Made current in an idle host that nobody watches, whose one call, presenting it, needs
    /// no queue: the caller is the deliverer now, presents the item, then finishes the
    /// delivery.
    case presentNow
    /// Shown or queued, or not, and a showing dropped for the reason given: the new one, or
    /// the one it replaced or pushed out of a full queue. `.duplicate(of:)` its own identity
    /// means the same value is current or waiting.
    case dropped(Showing, DropReason)
  }

  let policy: PresentationPolicy
  /// Whether a presenter hears of the items: for a host without one, no call presents them.
  let hasPresenter: Bool

  /// The item shown, and the items waiting for their turn.
  private(set) var turns = Turns<Showing>()
  /// The identity of the showing that holds each deduplication key.
  private var keys: [String: PresentationID] = [:]
  private var subscribers: [Int: Subscriber] = [:]
  private var nextSubscriber = 0
  /// The tasks timing the lifetimes of items shown, cancelled when an item leaves first.
  private var expiries: [PresentationID: Task<Void, Never>] = [:]

  /// The calls queued and not yet handed to a deliverer.
  private var undelivered: [Call] = []
  /// An empty buffer with capacity, which becomes `undelivered` when a deliverer takes the
  /// queued calls: the two trade places, so queueing a call does not allocate.
  private var spare: [Call] = []
  /// The token of the thread making the calls, while one is.
  private(set) var deliverer: UInt?

  init(policy: PresentationPolicy, hasPresenter: Bool) {
    self.policy = policy
    self.hasPresenter = hasPresenter
  }

  /// Whether no call is queued that has no deliverer: what holds whenever the lock is free.
  var isHandedOff: Bool { deliverer != nil || undelivered.isEmpty }

  // MARK: Showing

  /// Takes a new showing out of `showing` — moved, not copied — and makes it current, queues
  /// it, or drops it, by the policy. A caller that is to present it at once (``Admission/presentNow``)
  /// becomes the deliverer, named by `token`.
  mutating func show(_ showing: inout Showing?, by token: UInt) -> Admission {
    guard let entry = showing.take() else { preconditionFailure("a showing is shown once") }
    let item = entry.item
    // One value shown twice would be two showings with one identity: an answer to either
    // would answer both.
    if turns.contains(item.id) {
      return drop(entry, .duplicate(of: item.id))
    }
    if policy.deduplicates, let key = item.deduplicationKey, let original = keys[key] {
      return drop(entry, .duplicate(of: original))
    }
    guard turns.current != nil else {
      remember(item)
      turns.add(entry)
      // The usual case, an idle host that nobody watches, queues no call: its caller presents
      // the item at once.
      if deliverer == nil, undelivered.isEmpty, subscribers.isEmpty, hasPresenter,
        item.timedLifetime == nil
      {
        deliverer = token
        return .presentNow
      }
      present(item)
      return .handled
    }
    switch policy.whenBusy {
    case .dropNew:
      return drop(entry, .busy)
    case .replace:
      var admission = Admission.handled
      if let replaced = turns.endTurn() {
        takeDown(replaced.item)
        admission = drop(replaced, .replaced(by: item.id))
      }
      remember(item)
      turns.add(entry)
      present(item)
      return admission
    case .enqueue:
      let priority = item.priority
      var admission = Admission.handled
      if turns.waitingCount >= policy.maximumPending {
        guard let overflowed = makeRoom(for: priority) else {
          return drop(entry, .queueFull(limit: policy.maximumPending))
        }
        forget(overflowed.item)
        admission = drop(overflowed, .queueFull(limit: policy.maximumPending))
      }
      remember(item)
      // Behind every waiting item of the same or a higher priority: with one priority, the end.
      turns.enqueue(entry) { $0.item.priority >= priority }
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
  private mutating func makeRoom(for priority: PresentationPriority) -> Showing? {
    guard let lowest = turns.last?.item.priority else { return nil }
    switch policy.overflow {
    case .dropNew:
      return priority > lowest ? turns.removeLast() : nil
    case .dropOldest:
      return priority >= lowest ? turns.removeWaiting { $0.item.priority == lowest } : nil
    }
  }

  // MARK: Answering

  /// Takes the answer to the current item, checking that the item is current and the answer
  /// its own, then makes the next item current.
  ///
  /// - Returns: The answered showing, whose outcome the caller delivers.
  /// - Throws: ``PresentationError`` when the answer is refused; then nothing changed.
  mutating func answer(
    _ item: Item, with answer: Item.Answer?
  ) throws(PresentationError) -> Showing {
    // Taken out, not copied, and given back if the answer is refused.
    guard let shown = turns.endTurn() else {
      throw .notCurrent(item.id, title: item.title, current: nil)
    }
    let refusal: PresentationError? =
      if shown.item.id != item.id {
        .notCurrent(item.id, title: item.title, current: shown.item.id)
      } else if answer.map(shown.item.isValid) == false {
        // Checked in place: `if let` copied the answer out through its type's value witnesses.
        .invalidAnswer("\(answer.map { "\($0)" } ?? "")", item: item.id, title: item.title)
      } else if let resolution = shown.resolution, !resolution.markAnswered() {
        // Marked under the lock, so that a cancellation cannot come between the answer and
        // the mark. If the awaiting task was cancelled first, the item is resolved already and
        // its withdrawal is on its way: the answer is refused, as it would be a moment later.
        .notCurrent(item.id, title: item.title, current: nil)
      } else {
        nil
      }
    if let refusal {
      turns.add(shown)
      throw refusal
    }
    forget(shown.item)
    stopExpiry(of: shown.item)
    post(answer.map { .answered(shown.item, $0) } ?? .dismissed(shown.item))
    presentNext()
    return shown
  }

  /// Takes an item away, shown or waiting, as cancelled.
  ///
  /// - Returns: The showing taken away, for the caller to resolve.
  mutating func withdraw(_ id: PresentationID) -> Showing? {
    guard let (showing, wasShown) = turns.remove(id) else { return nil }
    if wasShown {
      takeDown(showing.item)
    } else {
      forget(showing.item)
    }
    post(.dropped(showing.item, .cancelled))
    if wasShown { presentNext() }
    return showing
  }

  // MARK: Expiring

  /// Keeps the task timing a current item's lifetime, to cancel it if the item leaves first.
  ///
  /// - Returns: `false` when the item left already: the caller cancels the task.
  mutating func keepExpiry(_ task: Task<Void, Never>, of id: PresentationID) -> Bool {
    guard turns.current?.item.id == id else { return false }
    expiries[id] = task
    return true
  }

  // MARK: Events

  /// Adds a subscriber to every event from now on.
  ///
  /// - Returns: Its identifier, to remove it by.
  mutating func subscribe(_ subscriber: Subscriber) -> Int {
    nextSubscriber += 1
    subscribers[nextSubscriber] = subscriber
    return nextSubscriber
  }

  /// Removes a subscriber, and returns it to be released with no lock held.
  mutating func unsubscribe(_ identifier: Int) -> Subscriber? {
    subscribers.removeValue(forKey: identifier)
  }

  // MARK: Delivering

  /// Hands the calls queued to the caller, identified by `token`, which makes them and then
  /// calls ``finishDelivery(by:returning:)``; `nil` when nothing is queued, or another thread
  /// delivers and takes these too.
  mutating func takeDelivery(by token: UInt) -> Delivery? {
    guard deliverer == nil, !undelivered.isEmpty else { return nil }
    deliverer = token
    return takeCalls()
  }

  /// Ends the delivery of one batch: hands the deliverer what was queued meanwhile, or, with
  /// nothing queued, makes it stop delivering. `buffer`, the emptied batch, is taken as the
  /// spare.
  mutating func finishDelivery(by token: UInt, returning buffer: inout [Call]) -> Delivery? {
    assert(deliverer == token, "only the deliverer finishes a delivery")
    // A burst that queued many calls gives its memory back rather than keep it.
    if buffer.capacity <= 64, spare.capacity == 0 { swap(&spare, &buffer) }
    guard !undelivered.isEmpty else {
      deliverer = nil
      return nil
    }
    return takeCalls()
  }

  private mutating func takeCalls() -> Delivery {
    var calls: [Call] = []
    swap(&calls, &spare)
    swap(&calls, &undelivered)
    return (calls, subscribers.isEmpty ? [] : Array(subscribers.values))
  }

  // MARK: Freeing

  /// Lets go of everything, for a host being freed, when no call is queued: the item shown,
  /// which its presenter takes away; every showing, the one shown first; the subscribers; and
  /// the expiries to cancel.
  mutating func free() -> (
    shown: Item?, showings: [Showing], subscribers: [Subscriber], expiries: [Task<Void, Never>]
  ) {
    assert(deliverer == nil && isHandedOff, "a host in use is not freed")
    defer { (subscribers, expiries, keys) = ([:], [:], [:]) }
    return (
      hasPresenter ? turns.current?.item : nil, turns.removeAll(), Array(subscribers.values),
      Array(expiries.values)
    )
  }

  // MARK: Changes

  /// Queues an event, if anyone subscribes to events: with no subscriber, the event is not even
  /// made.
  private mutating func post(_ event: @autoclosure () -> PresentationEvent<Item>) {
    if !subscribers.isEmpty { undelivered.append(.event(event())) }
  }

  /// Queues what follows from an item becoming current.
  private mutating func present(_ item: Item) {
    post(.presented(item))
    if hasPresenter { undelivered.append(.present(item)) }
    if let lifetime = item.timedLifetime { undelivered.append(.expire(item, after: lifetime)) }
  }

  /// Gives the turn to the item first in line, if one waits.
  @inline(__always)
  private mutating func presentNext() {
    if turns.waitingCount > 0, turns.startNext(), let next = turns.current?.item { present(next) }
  }

  /// Takes an item that was current off the screen without an answer.
  private mutating func takeDown(_ item: Item) {
    forget(item)
    stopExpiry(of: item)
    if hasPresenter { undelivered.append(.withdraw(item)) }
  }

  /// Tells of a showing dropped unanswered, which the caller resolves.
  private mutating func drop(_ showing: consuming Showing, _ reason: DropReason) -> Admission {
    post(.dropped(showing.item, reason))
    return .dropped(showing, reason)
  }

  @inline(__always)
  private mutating func remember(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == nil { keys[key] = item.id }
  }

  /// Forgets the deduplication key of an item that leaves the host.
  @inline(__always)
  private mutating func forget(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == item.id { keys[key] = nil }
  }

  /// Stops timing the lifetime of an item that left before it expired.
  ///
  /// Looks in an empty table first: looking an identifier up, even in an empty dictionary,
  /// hashes it, and most items (alerts) never have an expiry.
  private mutating func stopExpiry(of item: Item) {
    if !expiries.isEmpty, let expiry = expiries.removeValue(forKey: item.id) {
      undelivered.append(.cancelExpiry(expiry))
    }
  }
}
