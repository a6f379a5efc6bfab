@_spi(MilieuInternal) import Milieu

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Owns the one item being shown — `current`, a single optional — and the items waiting
/// behind it, and hands them to a presenter one at a time.
///
/// ``AlertHost`` and ``ToastHost`` are this host over ``AlertData`` and ``Toast``. Items
/// arrive through ``show(_:completion:)`` (usually from a ``ShowAlertAction``); the host applies
/// its ``PresentationPolicy``, makes an item current, calls its ``Presenter``, and waits for an
/// answer: ``answer(_:for:)``, ``dismiss(_:)``, or the item's expiry. Then `current` becomes
/// `nil` and the next waiting item is presented.
///
/// Each answer comes in two shapes with two names, so that the context never picks one for you:
/// ``answer(_:for:)`` and ``dismiss(_:)`` (for alerts also `tap(_:of:)`) start the answer's action
/// and return, from synchronous or asynchronous code alike; ``answerAndWait(_:for:)`` and
/// ``dismissAndWait(_:)`` (for alerts `tapAndWait(_:of:)`) wait until the action has finished.
///
/// ```swift
/// let host = AlertHost()  // no presenter: a headless program drives it
/// host.show(AlertData(title: "Saved"))
/// if let alert = host.current {
///   try host.tap(alert.buttons[0], of: alert)
/// }
/// ```
///
/// Every item resolves exactly once: answered, dismissed, or dropped with a ``DropReason``,
/// including when the host is deallocated with items still waiting.
///
/// The host never holds its lock while it runs user code, calls its presenter or delivers an
/// outcome. It calls its presenter, and yields its events, one call at a time and in the order
/// its state changed: on the thread whose call changed it, or, when another thread is making
/// such a call at that moment, on that thread as soon as it returns. An outcome is delivered on
/// the thread whose call resolved the item, after that call's presenter calls, and is never
/// handed to another thread. A presenter may therefore answer from inside
/// ``Presenter/present(_:in:)``, and a button action that shows another item just queues it.
public final class PresentationHost<Item: Presentable>: Sendable {
  /// How a new item, a duplicate and a full queue are treated.
  public let policy: PresentationPolicy

  /// The presenter, or one that draws nothing for a host without one (see ``isHeadless``): a
  /// call through an optional existential copied it first.
  let presenter: any Presenter<Item>
  /// Whether the host was made without a presenter.
  let isHeadless: Bool
  let clock: any Clock<Duration>
  /// Everything the host holds; changed only in ``mutate(_:)``.
  private let machine: Lock<PresentationStateMachine<Item>>

  typealias Showing = PresentationStateMachine<Item>.Showing

  /// Creates a host.
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
    self.presenter = presenter ?? Headless()
    self.isHeadless = presenter == nil
    self.clock = clock
    machine = Lock(PresentationStateMachine(policy: policy, hasPresenter: presenter != nil))
  }

  deinit {
    let remains = mutate { $0.free() }
    for expiry in remains.expiries { expiry.cancel() }
    // The presenter takes the item away: a presenter that several hosts share would otherwise
    // show it until someone answered it, and the other hosts' items would wait behind it.
    if let shown = remains.shown {
      assertNoMilieuLockHeld("a host calls its presenter")
      presenter.withdraw(shown, from: self)
    }
    for showing in remains.showings {
      for subscriber in remains.subscribers {
        subscriber.yield(.dropped(showing.item, .hostDeallocated))
      }
      showing.resolution?.resolve(.dropped(.hostDeallocated))
    }
    for subscriber in remains.subscribers { subscriber.finish() }
  }

  // MARK: State

  // The entry points that other modules call on an alert host are pre-specialized for alerts
  // (`@_specialize(exported: true, …)`), so that a call from another module runs code made for
  // `AlertData` rather than the host's generic code, which looks up type metadata throughout.
  // `answerAndWait` and `withdraw` are not: Swift 6.3 does not emit their pre-specializations,
  // and their callers here (the alert host's `tapAndWait`, `PresentationAction`) are
  // specialized anyway.

  /// The item being shown, or `nil`.
  public var current: Item? {
    @_specialize(exported:true,where Item == AlertData)
    get { read { $0.turns.current?.item } }
  }

  /// The items waiting behind ``current``, first to be shown first.
  public var pending: [Item] { read { $0.turns.waiting.map(\.item) } }

  /// The number of items waiting behind ``current``.
  public var pendingCount: Int { read { $0.turns.waitingCount } }

  /// Where a presenter reports problems presenting an item: the `issueReporter` of the node the
  /// item was shown from, whichever thread the presenter runs on.
  ///
  /// For an item the host no longer holds, and for a host without a presenter, the current
  /// node's reporter.
  ///
  /// - Parameter item: An item the host handed to its presenter.
  /// - Returns: The reporter.
  public func issueReporter(for item: Item) -> IssueReporter {
    guard let held = read({ $0.turns.element(item.id) }), !isHeadless else {
      return EnvironmentNode.current[\.issueReporter]
    }
    return held.reporter ?? EnvironmentNode.root[\.issueReporter]
  }

  // MARK: Showing

  /// Shows an item now, or queues it, according to the ``policy``.
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
  @_specialize(exported:true,where Item == AlertData)
  public func show(
    _ item: Item, completion: (@Sendable (PresentationOutcome<Item.Answer>) -> Void)? = nil
  ) {
    // Not `completion.map(Resolution.init)`: through `map`, the closure was wrapped twice more,
    // each wrapper an allocation.
    guard let completion else { return show(item, resolution: nil) }
    show(item, resolution: Resolution(completion))
  }

  /// Shows an item whose presenter's reports go to `reporter`: the `issueReporter` of the node
  /// of the action that shows it, or for `nil`, of the current node.
  @_specialize(exported:true,where Item == AlertData)
  package func show(
    _ item: Item, resolution: Resolution<Item.Answer>?, reportingTo reporter: IssueReporter? = nil
  ) {
    // Read here, on the thread and in the scope of the call, and kept with the item: a presenter
    // may ask for it from any thread, after this call has returned. The root's is read only if
    // a presenter asks.
    var showing = Optional(
      Showing(
        item: item, resolution: resolution,
        reporter: isHeadless ? nil : reporter ?? EnvironmentNode.scopedNode?[\.issueReporter]))
    let token = Self.deliveryToken
    switch mutate({ $0.show(&showing, by: token) }) {
    case .handled:
      break
    case .presentNow:
      assertNoMilieuLockHeld("a host calls its presenter")
      presenter.present(item, in: self)
      finishDelivery(by: token)
    case .dropped(let dropped, let reason):
      if reason == .duplicate(of: item.id) {
        (reporter ?? EnvironmentNode.current[\.issueReporter]).report(shownAlreadyIssue(item))
      }
      // Resolved after the calls and with no lock held: the item may hold the last reference
      // to what its actions captured, and its completion holds up no other thread.
      dropped.resolution?.resolve(.dropped(reason))
    }
  }

  private func shownAlreadyIssue(_ item: Item) -> EnvironmentIssue {
    EnvironmentIssue(
      "the \(Item.kindForDiagnostics) \(DiagnosticText.quoted(item.title)) (\(item.id)) is "
        + "already shown or waiting in its host; showing the same value again is dropped as a "
        + "duplicate of it, so that each showing is answered once. Fix: make a new "
        + "\(Item.self) for each showing, or await the outcome of the first.",
      at: item.callSiteForDiagnostics)
  }

  /// Shows an item and waits for its outcome.
  ///
  /// If the waiting task is cancelled, the item is withdrawn and resolves as
  /// ``DropReason/cancelled``.
  ///
  /// - Parameter item: The item.
  /// - Returns: How the item was resolved.
  public func outcome(of item: Item) async -> PresentationOutcome<Item.Answer> {
    await Resolution.awaitOutcome { resolution in
      self.show(item, resolution: resolution)
    } withdraw: {
      self.withdraw(item.id)
    }
  }

  // MARK: Answering

  /// Answers the current item and starts the answer's action.
  ///
  /// The action runs at most once, in a new task when it exists; the outcome is delivered when
  /// it has finished. Use ``answerAndWait(_:for:)`` to wait for the action.
  ///
  /// - Parameters:
  ///   - answer: The answer, which must belong to the item.
  ///   - item: The item, which must be ``current``.
  /// - Throws: ``PresentationError`` when the item is not current or the answer is not its
  ///   own; then nothing changes.
  @_specialize(exported:true,where Item == AlertData)
  public func answer(_ answer: Item.Answer, for item: Item) throws(PresentationError) {
    try respond(to: item, with: answer)
  }

  /// Answers the current item and waits for the answer's action to finish.
  ///
  /// - Parameters:
  ///   - answer: The answer, which must belong to the item.
  ///   - item: The item, which must be ``current``.
  /// - Throws: ``PresentationError`` when the item is not current or the answer is not its
  ///   own; then nothing changes.
  public func answerAndWait(
    _ answer: Item.Answer, for item: Item
  ) async throws(PresentationError) {
    try await respondAndWait(to: item, with: answer)
  }

  /// Dismisses the current item without an answer; for an alert, this runs the cancel button's
  /// action.
  ///
  /// - Parameter item: The item, which must be ``current``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when it is not; then nothing
  ///   changes.
  @_specialize(exported:true,where Item == AlertData)
  public func dismiss(_ item: Item) throws(PresentationError) {
    try respond(to: item, with: nil)
  }

  /// Dismisses the current item and waits for its dismissal action to finish.
  ///
  /// - Parameter item: The item, which must be ``current``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when it is not; then nothing
  ///   changes.
  @_specialize(exported:true,where Item == AlertData)
  public func dismissAndWait(_ item: Item) async throws(PresentationError) {
    try await respondAndWait(to: item, with: nil)
  }

  /// Takes an item away, shown or waiting, without an answer: it resolves as
  /// ``DropReason/cancelled``. Does nothing if the item is already resolved.
  ///
  /// - Parameter id: The item's identifier.
  public func withdraw(_ id: PresentationID) {
    mutate { $0.withdraw(id) }?.resolution?.resolve(.dropped(.cancelled))
  }

  /// Takes an answer to the current item — `nil` for a dismissal — and starts the action it
  /// runs, in a new task when there is one; the item resolves as answered, or dismissed, when
  /// the action has finished. The answer is checked by the state machine, and only there.
  func respond(to item: Item, with answer: Item.Answer?) throws(PresentationError) {
    let shown = try mutate { (machine) throws(PresentationError) in
      try machine.answer(item, with: answer)
    }
    guard let action = shown.item.action(for: answer) else {
      // The outcome is made only for an item that someone waits on: making it copies the
      // answer.
      if let resolution = shown.resolution { resolution.resolve(Self.outcome(of: answer)) }
      return
    }
    Task {
      await action()
      shown.resolution?.resolve(Self.outcome(of: answer))
    }
  }

  /// ``respond(to:with:)``, waiting for the action to finish.
  func respondAndWait(to item: Item, with answer: Item.Answer?) async throws(PresentationError) {
    let shown = try mutate { (machine) throws(PresentationError) in
      try machine.answer(item, with: answer)
    }
    await shown.item.action(for: answer)?()
    if let resolution = shown.resolution { resolution.resolve(Self.outcome(of: answer)) }
  }

  /// What an answer resolves an item as: answered, or for `nil`, dismissed.
  private static func outcome(of answer: Item.Answer?) -> PresentationOutcome<Item.Answer> {
    switch answer {
    case .some(let answer): .answered(answer)
    case .none: .dismissed
    }
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
    let identifier = mutate { $0.subscribe(continuation) }
    continuation.onTermination = { [weak self] _ in
      _ = self?.mutate { $0.unsubscribe(identifier) }
    }
    return stream
  }

  // MARK: Changing

  /// The one place the host's state changes: runs a transition under the lock, then makes the
  /// calls it queued with no lock held — unless another thread is making calls, which makes
  /// these too — and returns what the transition returned. See ``PresentationStateMachine``
  /// for the hand-off.
  ///
  /// A transition that throws changes nothing, so it leaves no call to make.
  @discardableResult @inline(__always)
  func mutate<Result, Failure: Error>(
    _ transition: (inout PresentationStateMachine<Item>) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let token = Self.deliveryToken
    let (result, delivery) = try machine.withLock {
      (machine) throws(Failure) -> (Result, PresentationStateMachine<Item>.Delivery?) in
      let result = try transition(&machine)
      let delivery = machine.takeDelivery(by: token)
      assert(machine.isHandedOff, "a call queued without a thread to make it")
      return (result, delivery)
    }
    if let (calls, subscribers) = delivery {
      finishDelivery(by: token, returning: make(calls, to: subscribers))
    }
    return result
  }

  /// The rest of `mutate`, for the deliverer that made a batch of calls, whose emptied buffer
  /// `emptied` is: makes the calls queued meanwhile, batch after batch, until none is left and
  /// the thread stops delivering.
  private func finishDelivery(
    by token: UInt, returning emptied: [PresentationStateMachine<Item>.Call] = []
  ) {
    var emptied = emptied
    while let (calls, subscribers) = machine.withLock({
      $0.finishDelivery(by: token, returning: &emptied)
    }) {
      emptied = make(calls, to: subscribers)
    }
  }

  /// Reads the state under the lock.
  func read<Result>(_ body: (borrowing PresentationStateMachine<Item>) -> Result) -> Result {
    machine.withLock { body($0) }
  }

  /// Makes the calls of a delivery, in order, and returns the emptied buffer that held them.
  private func make(
    _ calls: consuming [PresentationStateMachine<Item>.Call],
    to subscribers: [PresentationStateMachine<Item>.Subscriber]
  ) -> [PresentationStateMachine<Item>.Call] {
    assertNoMilieuLockHeld("a host makes its calls: presenting, withdrawing, events")
    // Popped from the back of the reversed batch, each call is moved out of the array rather
    // than copied out and later destroyed in it: copying and destroying the generic enum go
    // through its value witnesses.
    calls.reverse()
    while let call = calls.popLast() {
      switch consume call {
      case .present(let item): presenter.present(item, in: self)
      case .withdraw(let item): presenter.withdraw(item, from: self)
      case .event(let event): for subscriber in subscribers { subscriber.yield(event) }
      case .expire(let item, let lifetime): startExpiry(of: item, after: lifetime)
      case .cancelExpiry(let task): task.cancel()
      }
    }
    return calls
  }

  /// Names the calling thread to the hand-off's checks: its identity in debug builds, which
  /// check that only the thread delivering finishes a delivery; 0 in release builds.
  private static var deliveryToken: UInt {
    #if DEBUG
      #if canImport(Glibc)
        UInt(pthread_self())
      #else
        UInt(bitPattern: pthread_self())
      #endif
    #else
      0
    #endif
  }

  // MARK: Expiring

  /// Times an item's lifetime on the host's clock: when it runs out, the item is answered with
  /// its expiry answer, unless it left the screen first.
  private func startExpiry(of item: Item, after lifetime: Duration) {
    guard let answer = item.expiryAnswer else { return }
    let clock = clock
    let task = Task { [weak self] in
      do {
        try await clock.sleep(for: lifetime)
      } catch {
        return  // cancelled: the item resolved before it expired
      }
      try? await self?.answerAndWait(answer, for: item)
    }
    if !mutate({ $0.keepExpiry(task, of: item.id) }) { task.cancel() }
  }
}

extension PresentationHost: CustomStringConvertible {
  /// `AlertData host` — what tree dumps and explanations show for a host stored in the
  /// environment.
  public var description: String { "\(Item.self) host" }
}

/// The presenter of a host made without one: it draws nothing.
private struct Headless<Item: Presentable>: Presenter {
  func present(_: Item, in _: PresentationHost<Item>) {}
  func withdraw(_: Item, from _: PresentationHost<Item>) {}
}
