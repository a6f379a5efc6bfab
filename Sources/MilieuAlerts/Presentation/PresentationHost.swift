@_spi(MilieuInternal) import Milieu

/// Owns the one item being shown — `current`, a single optional — and the items waiting
/// behind it, and hands them to a presenter one at a time.
///
/// ``AlertHost`` and ``ToastHost`` are this host over ``AlertData`` and ``Toast``. Items
/// arrive through ``show(_:completion:)-(Item,_)`` (usually from a ``ShowAlertAction``); the host applies
/// its ``PresentationPolicy``, makes an item current, calls its ``Presenter``, and waits for an
/// answer: ``answer(_:for:)``, ``dismiss(_:)-(Item)``, or the item's expiry. Then `current` becomes
/// `nil` and the next waiting item is presented.
///
/// Each answer comes in two shapes with two names, so that the context never picks one for you:
/// ``answer(_:for:)`` and ``dismiss(_:)-(Item)`` (for alerts also `tap(_:of:)`) start the answer's action
/// and return, from synchronous or asynchronous code alike; ``answerAndWait(_:for:)`` and
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
  let state = Lock(State())

  /// One showing of an item: what answers it, and where its problems are reported.
  struct Showing: Sendable {
    let item: Item
    let resolution: Resolution<Item.Answer>?
    /// Where a presenter's reports about the item go: the `issueReporter` of the node it was
    /// shown from, read when it was shown. `nil` for the root, whose reporter is read when a
    /// presenter asks, and for a host without a presenter, which reports to the node of the
    /// code that answers it.
    let reporter: IssueReporter?
  }

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
  }

  deinit {
    let (shown, entries, subscribers, expiries) = state.withLock { state in
      var entries = state.pending.removeAll()
      let shown = state.current.take()
      if let shown { entries.insert(shown, at: 0) }
      return (shown, entries, state.subscribers.values, state.expiries.values)
    }
    for expiry in expiries { expiry.cancel() }
    // The presenter takes the item away: a presenter that several hosts share would otherwise
    // show it until someone answered it, and the other hosts' items would wait behind it.
    if let shown, !isHeadless {
      assertNoMilieuLockHeld("a host calls its presenter")
      presenter.withdraw(shown.item, from: self)
    }
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

  /// Where a presenter reports problems presenting an item: the `issueReporter` of the node the
  /// item was shown from, whichever thread the presenter runs on.
  ///
  /// For an item the host no longer holds, and for a host without a presenter, the current
  /// node's reporter.
  ///
  /// - Parameter item: An item the host handed to its presenter.
  /// - Returns: The reporter.
  public func issueReporter(for item: Item) -> IssueReporter {
    let held = state.withLock { state in
      state.current?.item.id == item.id
        ? state.current : state.pending.elements.first { $0.item.id == item.id }
    }
    guard let held, !isHeadless else { return EnvironmentNode.current[\.issueReporter] }
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
  package func show(
    _ item: Item, resolution: Resolution<Item.Answer>?, reportingTo reporter: IssueReporter? = nil
  ) {
    show(item: item, resolution: resolution, reportingTo: reporter)
  }

  /// `show(_:resolution:reportingTo:)` by another name, which the item-typed forms of it call.
  func show(
    item: Item, resolution: Resolution<Item.Answer>?, reportingTo reporter: IssueReporter?
  ) {
    // Read here, on the thread and in the scope of the call, and kept with the item: a presenter
    // may ask for it from any thread, after this call has returned. The root's is read only if
    // a presenter asks.
    var showing = Optional(
      Showing(
        item: item, resolution: resolution,
        reporter: isHeadless ? nil : reporter ?? EnvironmentNode.scopedNode?[\.issueReporter]))
    switch mutate({ $0.admit(&showing, policy: policy) }) {
    case .handled:
      break
    case .presentNow:
      assertNoMilieuLockHeld("a host calls its presenter")
      presenter.present(item, in: self)
      finishDelivering()
    case .dropped(let dropped, let reason):
      if reason == .duplicate(of: item.id) {
        (reporter ?? EnvironmentNode.current[\.issueReporter]).report(shownAlreadyIssue(item))
      }
      // Resolved here, after the effects and with no lock held: the item may hold the last
      // reference to what its actions captured, and its completion must hold up no other call.
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
  ///   - item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError`` when the item is not current or the answer is not its
  ///   own; then nothing changes.
  public func answer(_ answer: Item.Answer, for item: Item) throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: answer)
    guard let action else {
      entry.resolution?.resolve(.answered(answer))
      return
    }
    Task {
      await action()
      entry.resolution?.resolve(.answered(answer))
    }
  }

  /// Answers the current item and waits for the answer's action to finish.
  ///
  /// - Parameters:
  ///   - answer: The answer, which must belong to the item.
  ///   - item: The item, which must be ``current-959d1``.
  /// - Throws: ``PresentationError`` when the item is not current or the answer is not its
  ///   own; then nothing changes.
  public func answerAndWait(
    _ answer: Item.Answer, for item: Item
  ) async throws(PresentationError) {
    let (entry, action) = try resolveCurrent(item, with: answer)
    await action?()
    entry.resolution?.resolve(.answered(answer))
  }

  /// Dismisses the current item without an answer; for an alert, this runs the cancel button's
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
    mutate { $0.withdraw(id) }?.resolution?.resolve(.dropped(.cancelled))
  }

  /// Makes the current item answered, then presents the next one; returns the showing and the
  /// action the answer runs. The answer is checked here, and only here.
  private func resolveCurrent(
    _ item: Item, with answer: Item.Answer?
  ) throws(PresentationError) -> (Showing, (@Sendable () async -> Void)?) {
    let entry = try mutate { (state) throws(PresentationError) in
      try state.takeAnswered(item, with: answer)
    }
    return (entry, entry.item.action(for: answer))
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
