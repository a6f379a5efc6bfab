import Milieu

/// Owns the one item being shown — `current`, a single optional — and the items waiting
/// behind it, and hands them to a presenter one at a time.
///
/// ``AlertHost`` and ``ToastHost`` are this host over ``AlertData`` and ``Toast``. Items
/// arrive through ``show(_:completion:)-(Item,_)`` (usually from a ``ShowAlertAction``); the host applies
/// its ``PresentationPolicy``, makes an item current, calls its ``Presenter``, and waits for an
/// answer: ``choose(_:for:)``, ``dismiss(_:)-(Item)``, or the item's expiry. Then `current` becomes
/// `nil` and the next waiting item is presented.
///
/// Each answer comes in two shapes with two names, so that the context never picks one for you:
/// ``choose(_:for:)`` and ``dismiss(_:)-(Item)`` (for alerts also `tap(_:of:)`) start the answer's action
/// and return, from synchronous or asynchronous code alike; ``chooseAndWait(_:for:)`` and
/// ``dismissAndWait(_:)-(Item)`` (for alerts `tapAndWait(_:of:)`) wait until the action has finished.
///
/// ```swift
/// let host = AlertHost()  // no presenter: a headless program drives it
/// host.show(AlertData(title: "Saved"))
/// if let alert = host.current {
///   try host.tap(alert.buttons[0], of: alert)
/// }
/// ```
///
/// Every item resolves exactly once: chosen, dismissed, or dropped with a ``DropReason``,
/// including when the host is deallocated with items still waiting.
///
/// The host never holds its lock while it runs user code, calls its presenter or delivers an
/// outcome: those run afterwards, in order, on the thread that caused them. A presenter may
/// therefore answer from inside ``Presenter/present(_:in:)``, and a button action that shows
/// another item just queues it.
public final class PresentationHost<Item: Presentable>: Sendable {
  /// How a new item, a duplicate and a full queue are treated.
  public let policy: PresentationPolicy

  private let presenter: (any Presenter<Item>)?
  private let clock: any Clock<Duration>
  private let state = Lock(State())

  typealias Outcome = PresentationOutcome<Item.Choice>

  struct Entry: Sendable {
    let item: Item
    let resolution: Resolution<Item.Choice>?
  }

  fileprivate enum Effect: Sendable {
    case present(Item)
    case withdraw(Item)
    case resolve(Resolution<Item.Choice>, Outcome)
    case event(PresentationEvent<Item>)
    case expire(Item, after: Duration)
    case cancelExpiry(Task<Void, Never>)
  }

  fileprivate typealias Subscriber = AsyncStream<PresentationEvent<Item>>.Continuation

  /// Effects taken for delivery, with the subscribers their events go to.
  fileprivate typealias Batch = (effects: [Effect], subscribers: [Subscriber])

  fileprivate struct State: Sendable {
    var current: Entry?
    var pending = PendingQueue<Entry>()
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

  /// Creates a host.
  ///
  /// ```swift
  /// let host = AlertHost(policy: .replace, presenter: TerminalAlertPresenter())
  /// ```
  ///
  /// - Parameters:
  ///   - policy: How a new item, a duplicate and a full queue are treated.
  ///   - presenter: Draws the items; without one the host still holds its state, so a
  ///     headless program or a test can drive it.
  ///   - clock: The clock that times items with a ``Presentable/lifetime``, such as toasts.
  public init(
    policy: PresentationPolicy = .queue, presenter: (any Presenter<Item>)? = nil,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.policy = policy
    self.presenter = presenter
    self.clock = clock
  }

  deinit {
    let (entries, subscribers, expiries) = state.withLock { state in
      var entries = state.pending.removeAll()
      if let current = state.current.take() { entries.insert(current, at: 0) }
      return (entries, state.subscribers.values, state.expiries.values)
    }
    for expiry in expiries { expiry.cancel() }
    for entry in entries {
      for subscriber in subscribers { subscriber.yield(.dropped(entry.item, .hostDeallocated)) }
      entry.resolution?.resolve(.dropped(.hostDeallocated))
    }
    for subscriber in subscribers { subscriber.finish() }
  }

  // MARK: State

  /// The item being shown, or `nil`.
  public var current: Item? { currentItem }

  var currentItem: Item? { state.withLock { $0.current?.item } }

  /// The items waiting behind ``current-959d1``, first to be shown first.
  public var pending: [Item] { state.withLock { $0.pending.elements.map(\.item) } }

  /// The number of items waiting behind ``current-959d1``.
  public var pendingCount: Int { state.withLock { $0.pending.count } }

  // MARK: Showing

  /// Shows an item now, or queues it, according to the ``policy``.
  ///
  /// ```swift
  /// host.show(AlertData(title: "Saved")) { outcome in print("Saved:", outcome) }
  /// ```
  ///
  /// An item is one showing: showing a value that is already current or waiting here would give
  /// two showings one identity, so the new showing is dropped as
  /// ``DropReason/duplicate(of:)`` (of its own identifier) and reported through the
  /// `issueReporter`, whatever the policy. Once the first showing is resolved, the value may be
  /// shown again.
  ///
  /// - Parameters:
  ///   - item: The item.
  ///   - completion: Receives the item's outcome, exactly once.
  public func show(
    _ item: Item, completion: (@Sendable (PresentationOutcome<Item.Choice>) -> Void)? = nil
  ) {
    show(item, resolution: completion.map { Resolution($0) })
  }

  package func show(_ item: Item, resolution: Resolution<Item.Choice>?) {
    let entry = Entry(item: item, resolution: resolution)
    let isShownAlready = mutate { state in
      // One value shown twice would be two showings with one identity: an answer to either
      // would answer both.
      if state.isShownOrWaiting(item.id) {
        state.drop(entry, .duplicate(of: item.id))
        return true
      }
      if policy.deduplicates, let key = item.deduplicationKey, let original = state.keys[key] {
        state.drop(entry, .duplicate(of: original))
        return false
      }
      guard let shown = state.current else {
        state.post(.enqueued(item))
        state.makeCurrent(entry)
        return false
      }
      switch policy.whenBusy {
      case .dropNew:
        state.drop(entry, .busy)
      case .replace:
        state.post(.enqueued(item))
        state.current = nil
        state.forget(shown.item)
        state.stopExpiry(of: shown.item)
        state.effects.append(.withdraw(shown.item))
        state.drop(shown, .replaced(by: item.id))
        state.makeCurrent(entry)
      case .enqueue:
        if state.pending.count >= policy.maximumPending {
          guard policy.overflow == .dropOldest, let oldest = state.popFirstPending() else {
            state.drop(entry, .queueFull(limit: policy.maximumPending))
            return false
          }
          state.forget(oldest.item)
          state.drop(oldest, .queueFull(limit: policy.maximumPending))
        }
        if policy.maximumPending == 0 {
          state.drop(entry, .queueFull(limit: 0))
          return false
        }
        state.remember(item)
        state.pending.append(entry)
        state.pendingIDs.insert(item.id)
        state.post(.enqueued(item))
      }
      return false
    }
    if isShownAlready { reportShownAlready(item) }
  }

  private func reportShownAlready(_ item: Item) {
    EnvironmentNode.current[\.issueReporter].report(
      EnvironmentIssue(
        "the \(Item.kindForDiagnostics) \(DiagnosticText.quoted(item.title)) (\(item.id)) is "
          + "already shown or waiting in its host; showing the same value again is dropped as a "
          + "duplicate of it, so that each showing is answered once. Fix: make a new "
          + "\(Item.self) for each showing, or await the outcome of the first.",
        at: item.callSiteForDiagnostics))
  }

  /// Shows an item and waits for its outcome.
  ///
  /// If the waiting task is cancelled, the item is withdrawn and resolves as
  /// ``DropReason/cancelled``.
  ///
  /// ```swift
  /// let outcome = await host.outcome(of: AlertData(title: "Continue?", buttons: [.default("Yes"), .cancel()]))
  /// ```
  ///
  /// - Parameter item: The item.
  /// - Returns: How the item was resolved.
  public func outcome(of item: Item) async -> PresentationOutcome<Item.Choice> {
    await Self.awaitOutcome(of: item) { resolution in
      self.show(item, resolution: resolution)
    } withdraw: {
      self.withdraw(item.id)
    }
  }

  /// Waits for an outcome delivered through a ``Resolution``; cancellation withdraws the item.
  static func awaitOutcome(
    of item: Item, deliver: (Resolution<Item.Choice>) -> Void,
    withdraw: @escaping @Sendable () -> Void
  ) async -> PresentationOutcome<Item.Choice> {
    // Weak: whoever handles the item owns the resolution, so that if it lets the resolution go
    // unanswered, the resolution's deinit resumes the continuation.
    let box = WeakResolution<Item.Choice>()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let resolution = Resolution<Item.Choice> { continuation.resume(returning: $0) }
        box.set(resolution)
        deliver(resolution)
        // Withdrawn only while this showing is unresolved: a showing already answered keeps its
        // answer, and one dropped (a duplicate of a value still shown) must not withdraw the
        // showing it duplicates, which has the same identity.
        if Task.isCancelled, resolution.cancel() {
          withdraw()
        }
      }
    } onCancel: {
      if box.get()?.cancel() == true { withdraw() }
    }
  }

  // MARK: Answering

  /// Answers the current item with a choice and starts the choice's action.
  ///
  /// The action runs at most once, in a new task when it exists; the outcome is delivered when
  /// it has finished. Use ``chooseAndWait(_:for:)`` to wait for the action.
  ///
  /// - Parameters:
  ///   - choice: The answer, which must belong to the item.
  ///   - item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError`` when the item is not current or the choice is not its
  ///   own; then nothing changes.
  public func choose(_ choice: Item.Choice, for item: Item) throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: choice)
    guard let action else {
      entry.resolution?.resolve(.chosen(choice))
      return
    }
    Task {
      await action()
      entry.resolution?.resolve(.chosen(choice))
    }
  }

  /// Answers the current item with a choice and waits for the choice's action to finish.
  ///
  /// ```swift
  /// try await host.chooseAndWait(.expired, for: toast)
  /// ```
  ///
  /// - Parameters:
  ///   - choice: The answer, which must belong to the item.
  ///   - item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError`` when the item is not current or the choice is not its
  ///   own; then nothing changes.
  public func chooseAndWait(
    _ choice: Item.Choice, for item: Item
  ) async throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: choice)
    await action?()
    entry.resolution?.resolve(.chosen(choice))
  }

  /// Dismisses the current item without a choice; for an alert, this runs the cancel button's
  /// action.
  ///
  /// - Parameter item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when it is not; then nothing
  ///   changes.
  public func dismiss(_ item: Item) throws(PresentationError) {
    try dismissItem(item)
  }

  func dismissItem(_ item: Item) throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: nil)
    guard let action else {
      entry.resolution?.resolve(.dismissed)
      return
    }
    Task {
      await action()
      entry.resolution?.resolve(.dismissed)
    }
  }

  /// Dismisses the current item and waits for its dismissal action to finish.
  ///
  /// ```swift
  /// try await host.dismissAndWait(toast)
  /// ```
  ///
  /// - Parameter item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when it is not; then nothing
  ///   changes.
  public func dismissAndWait(_ item: Item) async throws(PresentationError) {
    try await dismissItemAndWait(item)
  }

  func dismissItemAndWait(_ item: Item) async throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: nil)
    await action?()
    entry.resolution?.resolve(.dismissed)
  }

  /// Takes an item away, shown or waiting, without an answer: it resolves as
  /// ``DropReason/cancelled``. Does nothing if the item is already resolved.
  ///
  /// - Parameter id: The item's identifier.
  public func withdraw(_ id: PresentationID) {
    mutate { state in
      if let shown = state.current, shown.item.id == id {
        state.current = nil
        state.forget(shown.item)
        state.stopExpiry(of: shown.item)
        state.effects.append(.withdraw(shown.item))
        state.drop(shown, .cancelled)
        state.presentNext()
      } else if state.pendingIDs.remove(id) != nil,
        let waiting = state.pending.remove(where: { $0.item.id == id })
      {
        state.forget(waiting.item)
        state.drop(waiting, .cancelled)
      }
    }
  }

  /// Makes the current item answered: validates, then presents the next one.
  private func resolveCurrent(
    _ item: Item, with choice: Item.Choice?
  ) throws(PresentationError) -> (Entry, (@Sendable () async -> Void)?) {
    let entry = try mutate { (state) throws(PresentationError) in
      guard let shown = state.current, shown.item.id == item.id else {
        throw .notCurrent(item.id, title: item.title, current: state.current?.item.id)
      }
      if let choice, !shown.item.isValid(choice) {
        throw .invalidChoice("\(choice)", item: item.id, title: item.title)
      }
      // Marked under the lock, so that a cancellation cannot come between the answer and the
      // mark. If the awaiting task was cancelled first, the item is resolved already and its
      // withdrawal is on its way: the answer is refused, as it would be a moment later.
      if let resolution = shown.resolution, !resolution.markAnswered() {
        throw .notCurrent(item.id, title: item.title, current: nil)
      }
      state.current = nil
      state.forget(shown.item)
      state.stopExpiry(of: shown.item)
      state.post(choice.map { .chosen(shown.item, $0) } ?? .dismissed(shown.item))
      state.presentNext()
      return shown
    }
    return (entry, entry.item.action(for: choice))
  }

  // MARK: Events

  /// A stream of everything that happens to items in this host, from now on.
  ///
  /// Each call returns a new stream; every stream receives every event, in order. Streams
  /// finish when the host is deallocated.
  ///
  /// ```swift
  /// Task {
  ///   for await event in host.events() { log(event) }
  /// }
  /// ```
  ///
  /// - Parameter bufferingPolicy: What the stream keeps while its consumer is busy.
  /// - Returns: The stream.
  public func events(
    bufferingPolicy: AsyncStream<PresentationEvent<Item>>.Continuation.BufferingPolicy =
      .unbounded
  ) -> AsyncStream<PresentationEvent<Item>> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: PresentationEvent<Item>.self, bufferingPolicy: bufferingPolicy)
    let identifier = state.withLock { state in
      state.nextSubscriber += 1
      state.subscribers[state.nextSubscriber] = continuation
      return state.nextSubscriber
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.subscribers.removeValue(forKey: identifier) }
    }
    return stream
  }

  // MARK: Delivery

  /// Changes the state under the lock, then delivers the effects it queued, in order, with no
  /// lock held. If another call is already delivering, it delivers these too.
  ///
  /// `body` throws only before it changes anything, so a throw leaves nothing to deliver: outside
  /// the lock, queued effects always have a call delivering them.
  private func mutate<Result: Sendable, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (result, batch) = try state.withLock {
      (state) throws(Failure) -> (Result, Batch?) in
      let result = try body(&state)
      guard !state.isDelivering, !state.effects.isEmpty else { return (result, nil) }
      state.isDelivering = true
      return (result, state.takeEffects())
    }
    if let (effects, subscribers) = batch { deliver(effects, to: subscribers) }
    return result
  }

  /// Runs a batch of effects, then each batch queued meanwhile, until none is left.
  ///
  /// The emptied batch goes back to the state, as the next buffer to queue effects in or as
  /// the spare, so that a host in use does not allocate to deliver.
  private func deliver(
    _ effects: consuming [Effect], to subscribers: [Subscriber]
  ) {
    var subscribers = subscribers
    while true {
      // Popped from the back of the reversed batch, each effect is moved out of the array rather
      // than copied out and later destroyed in it: copying and destroying the generic enum go
      // through its value witnesses, which cost an alert about a fifth of its time.
      effects.reverse()
      while let effect = effects.popLast() {
        switch consume effect {
        case .present(let item): presenter?.present(item, in: self)
        case .withdraw(let item): presenter?.withdraw(item, from: self)
        case .resolve(let resolution, let outcome): resolution.resolve(outcome)
        case .event(let event): for subscriber in subscribers { subscriber.yield(event) }
        case .expire(let item, let lifetime): scheduleExpiry(of: item, after: lifetime)
        case .cancelExpiry(let task): task.cancel()
        }
      }
      if effects.capacity > Self.reusedEffectsCapacity { effects = [] }
      let finished = state.withLock { state in
        if state.effects.isEmpty {
          state.isDelivering = false
          swap(&state.spareEffects, &effects)
          return true
        }
        swap(&state.effects, &effects)
        subscribers = state.eventSubscribers
        return false
      }
      if finished { return }
    }
  }

  /// The most effects a buffer that is kept for reuse may hold: a burst that queued more (many
  /// items shown at once) gives its memory back rather than keep it for the host's lifetime.
  private static var reusedEffectsCapacity: Int { 64 }

  private func scheduleExpiry(of item: Item, after lifetime: Duration) {
    guard let choice = item.expiryChoice else { return }
    let clock = clock
    let task = Task { [weak self] in
      do {
        try await clock.sleep(for: lifetime)
      } catch {
        return  // cancelled: the item resolved before it expired
      }
      try? await self?.chooseAndWait(choice, for: item)
    }
    let stillShown = state.withLock { state in
      guard state.current?.item.id == item.id else { return false }
      state.expiries[item.id] = task
      return true
    }
    if !stillShown { task.cancel() }
  }
}

extension PresentationHost.State {
  /// Takes the queued effects, with the subscribers their events go to, and puts the spare
  /// buffer in their place.
  fileprivate mutating func takeEffects() -> PresentationHost.Batch {
    var taken: [PresentationHost.Effect] = []
    swap(&taken, &spareEffects)
    swap(&taken, &effects)
    return (taken, eventSubscribers)
  }

  /// The subscribers that the events of the effects being taken go to.
  fileprivate var eventSubscribers: [PresentationHost.Subscriber] {
    subscribers.isEmpty ? [] : Array(subscribers.values)
  }

  /// Queues an event, if anyone subscribes to events: with no subscriber, the event is not even
  /// made.
  fileprivate mutating func post(_ event: @autoclosure () -> PresentationEvent<Item>) {
    if !subscribers.isEmpty { effects.append(.event(event())) }
  }

  fileprivate mutating func makeCurrent(_ entry: PresentationHost.Entry) {
    remember(entry.item)
    current = entry
    post(.presented(entry.item))
    effects.append(.present(entry.item))
    if let lifetime = entry.item.timedLifetime {
      effects.append(.expire(entry.item, after: lifetime))
    }
  }

  fileprivate mutating func presentNext() {
    if let next = popFirstPending() {
      current = next
      post(.presented(next.item))
      effects.append(.present(next.item))
      if let lifetime = next.item.timedLifetime {
        effects.append(.expire(next.item, after: lifetime))
      }
    }
  }

  /// Stops the expiry of an item that left the screen before its lifetime ran out.
  ///
  /// Checks for an empty table first: looking an identifier up, even in an empty dictionary,
  /// hashes it, and most items (alerts) never have an expiry.
  fileprivate mutating func stopExpiry(of item: Item) {
    if !expiries.isEmpty, let expiry = expiries.removeValue(forKey: item.id) {
      effects.append(.cancelExpiry(expiry))
    }
  }

  fileprivate mutating func drop(_ entry: PresentationHost.Entry, _ reason: DropReason) {
    post(.dropped(entry.item, reason))
    if let resolution = entry.resolution { effects.append(.resolve(resolution, .dropped(reason))) }
  }

  /// Whether an item with this identity is current or waiting.
  fileprivate func isShownOrWaiting(_ id: PresentationID) -> Bool {
    current?.item.id == id || (!pendingIDs.isEmpty && pendingIDs.contains(id))
  }

  /// Takes the first waiting item out of the queue.
  fileprivate mutating func popFirstPending() -> PresentationHost.Entry? {
    guard let first = pending.popFirst() else { return nil }
    pendingIDs.remove(first.item.id)
    return first
  }

  fileprivate mutating func remember(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == nil { keys[key] = item.id }
  }

  fileprivate mutating func forget(_ item: Item) {
    if let key = item.deduplicationKey, keys[key] == item.id { keys[key] = nil }
  }
}

extension PresentationHost: CustomStringConvertible {
  /// `AlertData host` — what tree dumps and explanations show for a host stored in the
  /// environment.
  public var description: String { "\(Item.self) host" }
}
