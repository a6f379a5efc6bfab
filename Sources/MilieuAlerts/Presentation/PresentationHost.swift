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
/// outcome: those run afterwards, in order, on the thread that caused them. A presenter may
/// therefore answer from inside ``Presenter/present(_:in:)``, and a button action that shows
/// another item just queues it.
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
    /// Where a presenter's reports about the item go, while the call that showed it runs: the
    /// node it was shown from, unretained, since that call holds it; `nil` for the root, and
    /// for a host without a presenter, which reports nothing about presenting. As that call
    /// returns, if the host still holds the item, it keeps the node's reporter in
    /// `State.reporters`. A host that held the node would keep alive, through items nobody
    /// answers, the node that holds the host.
    var showingNode: ShowingNode?
  }

  /// A node, unretained: valid while the call that showed an item runs, which holds it.
  struct ShowingNode: @unchecked Sendable {
    // @unchecked: used only while that call runs, on any thread; `show` drops it before it
    // returns.
    let node: Unmanaged<EnvironmentNode>
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

  /// Where a presenter reports problems presenting an item: the `issueReporter` of the node the
  /// item was shown from, whichever thread the presenter runs on.
  ///
  /// For an item the host no longer holds, or whose node is gone (the host does not keep it
  /// alive), the current node's reporter.
  ///
  /// - Parameter item: An item the host handed to its presenter.
  /// - Returns: The reporter.
  public func issueReporter(for item: Item) -> IssueReporter {
    let held = state.withLock { state -> (entry: Showing, reporter: IssueReporter?)? in
      let entry =
        state.current?.item.id == item.id
        ? state.current : state.pending.elements.first { $0.item.id == item.id }
      return entry.map { ($0, state.reporters[item.id]) }
    }
    if let reporter = held?.reporter { return reporter }
    if let showing = held?.entry.showingNode {
      return showing.node.takeUnretainedValue()[\.issueReporter]
    }
    return EnvironmentNode.current[\.issueReporter]
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

  /// Shows an item for an action bound to `origin`, or, for `nil`, for the current node: the
  /// node whose `issueReporter` hears of problems presenting the item.
  package func show(
    _ item: Item, resolution: Resolution<Item.Answer>?, from origin: EnvironmentNode? = nil
  ) {
    show(item: item, resolution: resolution, from: origin)
  }

  /// `show(_:resolution:from:)` by another name, which the item-typed forms of it call.
  func show(item: Item, resolution: Resolution<Item.Answer>?, from origin: EnvironmentNode?) {
    // The node is read only for a presenter's reports, and its reporter only if the host still
    // holds the item when this call returns: an alert answered at once costs neither.
    let node = isHeadless ? nil : origin ?? EnvironmentNode.scopedNode
    let entry = Showing(
      item: item, resolution: resolution,
      showingNode: node.map { ShowingNode(node: .passUnretained($0)) })
    let isHeld: Bool
    switch mutate({ $0.admit(entry, policy: policy) }) {
    case .handled:
      isHeld = !isHeadless && state.withLock { $0.holds(item.id) }
    case .shownAlready:
      reportShownAlready(item, in: origin ?? EnvironmentNode.current)
      isHeld = false
    case .presentNow:
      assertNoMilieuLockHeld("a host calls its presenter")
      presenter.present(item, in: self)
      isHeld = finishDelivering(holding: isHeadless ? nil : item.id)
    }
    if isHeld {
      let reporter = (node ?? EnvironmentNode.root).values.issueReporter
      state.withLock { $0.setReporter(reporter, of: item.id) }
    }
    withExtendedLifetime(node) {}
  }

  private func reportShownAlready(_ item: Item, in node: EnvironmentNode) {
    node[\.issueReporter].report(
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
    mutate { $0.withdraw(id) }
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
