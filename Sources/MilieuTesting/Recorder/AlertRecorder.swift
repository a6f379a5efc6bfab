@_spi(MilieuInternal) import Milieu
import MilieuAlerts

/// Stands in for an alert host in tests: records every alert the code under test shows, lets the
/// test check them, and answers them by button title.
///
/// Install one with ``withAlertRecorder(exhaustive:fileID:filePath:line:column:isolation:_:)`` for
/// a scope, or with `EnvironmentNode.installAlertRecorder()`
/// on a node:
///
/// ```swift
/// @Test func signingInAsksFirst() async throws {
///   try await withAlertRecorder { alerts in
///     let session = Session()         // its @Environment(\.showAlert) reaches the recorder
///     session.expire()
///
///     #expect(alerts.title == "Session expired")
///     #expect(alerts.cancelButtonTitle == nil)
///     #expect(alerts.otherButtonTitles == ["OK", "Sign In"])
///     try await alerts.tap("Sign In")  // runs the button's action, awaiting it
///     #expect(session.isSigningIn)
///   }
/// }
/// ```
///
/// A recorder is *exhaustive* by default: when its scope ends, every alert that was shown but
/// never inspected (through ``alerts``, ``current`` or ``next(timeout:clock:)``) nor answered
/// is reported as a test failure that lists it. Pass `exhaustive: false` to opt out.
public final class AlertRecorder: Sendable {
  /// The host behind the recorder: it holds the shown alert and the queue, as in production.
  public let host: AlertHost
  /// Whether unchecked alerts fail the test when the recorder finishes.
  public let isExhaustive: Bool
  /// Where the recorder was created; exhaustivity failures point here.
  public let callSite: CallSite

  private let state = Lock(State())
  private let installation = Lock(Installation())

  /// Where a scope or a node installed the recorder; weak, since the node holds the recorder.
  private struct Installation: Sendable {
    weak var node: EnvironmentNode?
  }

  private struct State: Sendable {
    var records: [Record] = []
    /// Where each recorded alert is in `records`.
    var indices: [PresentationID: Int] = [:]
    /// The calls of `next` waiting for an alert to become current, by the order they came in.
    var waiters: [Int: CheckedContinuation<AlertData?, Never>] = [:]
    var nextWaiter = 0
    /// The button actions that `tap` and `dismiss` started and that have not finished: each is
    /// running, or waiting on the outcome of an alert of this recorder (`ask`).
    var answers: [Int: PresentationID?] = [:]
    var nextAnswer = 0
    /// How each finished answer ended, until its `tap` or `dismiss` reads it.
    var answerResults: [Int: PresentationError?] = [:]
    /// The text typed into each text field of an alert, by `type`, until it is answered.
    var typedTexts: [PresentationID: [String]] = [:]
    /// The calls of `tap` and `dismiss` waiting until no action they started is running.
    var settleWaiters: [CheckedContinuation<Void, Never>] = []
    var isFinished = false

    /// Whether every action started by a tap has finished or waits on an alert.
    var isSettled: Bool { !answers.values.contains { $0 == nil } }
  }

  /// An alert as recorded: without its button actions, so that the history keeps nothing alive
  /// (an action that captures a service would otherwise tie the service, its node and this
  /// recorder into a cycle).
  private struct Record: Sendable {
    let alert: AlertData
    var isInspected = false
    var isResolved = false
    /// Whether `next` has returned it.
    var isReturned = false
  }

  /// Creates a recorder. Install its ``action`` where the code under test reads `showAlert`.
  ///
  /// ```swift
  /// let recorder = AlertRecorder(exhaustive: false)
  /// let node = EnvironmentNode("test").child { $0.showAlert = recorder.action }
  /// ```
  ///
  /// - Parameters:
  ///   - exhaustive: Whether unchecked alerts fail the test when the recorder finishes.
  ///   - policy: The policy of the recorder's host; by default every alert queues.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public init(
    exhaustive: Bool = true,
    policy: PresentationPolicy = PresentationPolicy(maximumPending: 10_000),
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    TestRunnerReporter.connect()
    let relay = PresentationRelay()
    host = AlertHost(policy: policy, presenter: relay)
    isExhaustive = exhaustive
    callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    relay.connect(to: self)
  }

  deinit {
    finish()
  }

  /// The `showAlert` action that records into this recorder.
  ///
  /// An alert shown through it after the recorder finished — by a task that outlived the
  /// recorder's scope — fails the test and resolves at once as `DropReason.noHost`: nobody is
  /// left to answer it.
  public var action: ShowAlertAction {
    ShowAlertAction(
      engine: PresentationAction { [self] alert, resolution in
        guard record(alert) else {
          reportLate(alert)
          resolution?.resolve(.dropped(.noHost))
          return
        }
        host.show(
          alert,
          resolution: Resolution { [weak self] outcome in
            self?.markResolved(alert.id)
            resolution?.resolve(outcome)
          })
        if resolution != nil, PresentationAsking.isAsking, let answer = RecorderAnswer.current {
          markAwaited(alert.id, by: answer)
        }
      } withdraw: { [host] id in
        host.withdraw(id)
      })
  }

  /// The node the recorder is installed on, while it exists: the node
  /// ``withAlertRecorder(exhaustive:fileID:filePath:line:column:isolation:_:)`` makes for its
  /// body, or the node of `EnvironmentNode.installAlertRecorder()`; `nil` for a recorder made
  /// with ``init(exhaustive:policy:fileID:filePath:line:column:)`` and not installed.
  ///
  /// Install more beside the recorder there, such as a toast host:
  ///
  /// ```swift
  /// try withAlertRecorder { alerts in
  ///   let toasts = try #require(alerts.node).installToastHost(clock: TestClock())
  ///   Exporter().export()
  ///   #expect(toasts.current?.message == "Exported 12 notes")
  /// }
  /// ```
  public var node: EnvironmentNode? { installation.withLock { $0.node } }

  /// Remembers the node the recorder is installed on.
  func install(on node: EnvironmentNode) {
    installation.withLock { $0.node = node }
  }

  // MARK: Inspecting

  /// Every alert shown so far, in order. Reading it counts as checking them all.
  public var alerts: [AlertData] {
    state.withLock { state in
      for index in state.records.indices { state.records[index].isInspected = true }
      return state.records.map(\.alert)
    }
  }

  /// The alert shown now, if any. Reading it counts as checking it.
  public var current: AlertData? {
    guard let alert = host.current else { return nil }
    state.withLock { state in
      if let index = state.indices[alert.id] {
        state.records[index].isInspected = true
      }
    }
    return alert
  }

  /// The current alert's title.
  public var title: String? { current?.title }
  /// The current alert's message.
  public var message: String? { current?.message }
  /// The title of the current alert's cancel button, if it has one.
  public var cancelButtonTitle: String? { current?.cancelButton?.title }
  /// The titles of the current alert's other buttons, in order.
  public var otherButtonTitles: [String]? {
    current.map { $0.buttons.filter { $0.role != .cancel }.map(\.title) }
  }

  /// Waits until an alert the test has not yet received from `next` is current, and returns it.
  ///
  /// ```swift
  /// Task { await importer.run() }          // shows an alert later
  /// let alert = try await recorder.next()  // fails clearly if none comes in ten seconds
  /// try await recorder.tap("Retry")        // the alert `next` returned is the current one
  /// ```
  ///
  /// When `next` returns, its alert is current, so a `tap` or `dismiss` right after it answers
  /// that alert. Alerts come in the order they are presented: one waiting behind another is
  /// returned once the one before it has been answered, and one answered or withdrawn before
  /// any `next` asked for it is skipped.
  ///
  /// The timeout only bounds a wait that has already failed: `next` returns as soon as the alert
  /// is current, so a generous bound costs a passing test nothing, while a tight one can fail a
  /// test on a busy machine that would pass on a quiet one. To test the timeout itself, or code
  /// that shows its alert after a delay, pass a ``TestClock`` and advance it:
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let waiting = Task { try await recorder.next(timeout: .seconds(5), clock: clock) }
  /// while clock.sleeperCount == 0 { await Task.yield() }  // until `next` waits on the clock
  /// clock.advance(by: .seconds(5))  // no alert yet: `next` throws `timedOut` now
  /// ```
  ///
  /// Advance the clock only once `next` is waiting on it: the timeout counts from the clock's
  /// time when `next` starts to wait.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for the alert before failing.
  ///   - clock: The clock the timeout is measured on: by default, the continuous clock.
  /// - Returns: The alert, current in the recorder's host.
  /// - Throws: ``AlertRecorderError/timedOut(after:shownSoFar:)`` when no alert arrives in time;
  ///   ``AlertRecorderError/waitingBehind(_:pending:after:)`` when alerts wait behind one that
  ///   is still shown, unanswered.
  @discardableResult
  public func next(
    timeout: Duration = .seconds(10), clock: some Clock<Duration> = ContinuousClock()
  ) async throws(AlertRecorderError) -> AlertData {
    let waiter = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    var timer: Task<Void, Never>?
    defer { timer?.cancel() }
    let alert = await withCheckedContinuation { continuation in
      let ready: AlertData? = state.withLock { state in
        if let shown = host.current, let alert = Self.take(shown.id, in: &state) {
          return alert
        }
        state.waiters[waiter] = continuation
        return nil
      }
      if let ready {
        continuation.resume(returning: ready)
        return
      }
      // Started only now that the waiter is registered: a timer started before could fire
      // first, find nobody to wake, and leave `next` waiting forever.
      timer = Task { [weak self] in
        try? await clock.sleep(for: timeout)
        self?.resumeWaiter(waiter, with: nil)
      }
    }
    guard let alert else {
      let pending = host.pending.map(\.title)
      if let shown = host.current, !pending.isEmpty {
        throw .waitingBehind(shown.title, pending: pending, after: timeout)
      }
      throw .timedOut(after: timeout, shownSoFar: state.withLock { $0.records.map(\.alert.title) })
    }
    return alert
  }

  // MARK: Answering

  /// Taps the current alert's button with a title and runs its action; returns when the action
  /// has finished, or as soon as it waits on an alert of this recorder.
  ///
  /// ```swift
  /// try await alerts.tap("Delete")        // Delete's action asks "Really?" and waits
  /// let followUp = try await alerts.next()  // "Really?", current
  /// try await alerts.tap("Yes")             // returns once Delete's action has finished
  /// ```
  ///
  /// An action that asks a follow-up (`showAlert.ask`) waits for an answer only the test can
  /// give, so `tap` returns when the follow-up is shown, and the test answers it with
  /// ``next(timeout:clock:)`` and another `tap`. That `tap` returns once every action the
  /// recorder's taps started has finished or waits on an alert again. An action that shows
  /// an alert without waiting for it is awaited to its end, as any other.
  ///
  /// The title is matched exactly, or else ignoring letter case when that finds one button.
  ///
  /// - Parameter title: The button's title.
  /// - Throws: ``AlertRecorderError`` when no alert is shown, it has no such button, or the title
  ///   is ambiguous.
  public func tap(_ title: String) async throws(AlertRecorderError) {
    let request = "tap(\"\(title)\")"
    guard let alert = current else {
      throw .noAlert(request: request, shownSoFar: shownTitles)
    }
    let button = try Self.button(titled: title, in: alert)
    let texts = alert.textFields.isEmpty ? nil : state.withLock { $0.typedTexts[alert.id] }
    try await answer(request) { [host] () async throws(PresentationError) in
      if let texts {
        try await host.tapAndWait(button, of: alert, texts: texts)
      } else {
        try await host.tapAndWait(button, of: alert)
      }
    }
  }

  /// Types text into a text field of the current alert, in place of what it held; the next
  /// ``tap(_:)`` answers the alert with it.
  ///
  /// ```swift
  /// let alert = try await alerts.next()
  /// #expect(alert.textFields.map(\.label) == ["Name"])
  /// try alerts.type("Groceries", into: "Name")
  /// try await alerts.tap("Rename")  // the tap carries Name: "Groceries"
  /// ```
  ///
  /// A field that nothing was typed into keeps the text it starts with. The label is matched
  /// exactly, or else ignoring letter case when that finds one field. Text a person could not
  /// type into one field — a control character, more than 4,096 characters — fails the test
  /// with the rule and the fix, and is typed repaired, as a host would repair it. No failure
  /// quotes what was typed into a secure field, nor, when no alert is shown, into any field.
  ///
  /// - Parameters:
  ///   - text: The text to type.
  ///   - label: The field's label.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  /// - Throws: ``AlertRecorderError`` when no alert is shown, it has no such field, or the
  ///   label is ambiguous.
  public func type(
    _ text: String, into label: String,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) throws(AlertRecorderError) {
    guard let alert = current else {
      throw .noAlert(
        request: "type(into: \(DiagnosticText.quoted(label)))", shownSoFar: shownTitles)
    }
    let index = try Self.textField(labelled: label, in: alert)
    var typedField = alert.textFields[index]
    typedField.text = text
    let quoted = typedField.isSecure ? typedField.quotedText : Self.quotedTyping(text)
    let request = "type(\(quoted), into: \(DiagnosticText.quoted(label)))"
    let (typed, brokenRules) = AlertValidation.repairEntered(text, label: typedField.label)
    for brokenRule in brokenRules {
      TestRunnerReporter.fail(
        "\(request): the text breaks \(brokenRule)",
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    state.withLock { state in
      var texts = state.typedTexts[alert.id] ?? alert.textFields.map(\.text)
      texts[index] = typed
      state.typedTexts[alert.id] = texts
    }
  }

  /// Dismisses the current alert, which runs its cancel button's action; returns as ``tap(_:)``
  /// does, when the action has finished or waits on an alert of this recorder.
  ///
  /// - Throws: ``AlertRecorderError/noAlert(request:shownSoFar:)`` when no alert is shown.
  public func dismiss() async throws(AlertRecorderError) {
    guard let alert = current else {
      throw .noAlert(request: "dismiss()", shownSoFar: shownTitles)
    }
    try await answer("dismiss()") { [host] () async throws(PresentationError) in
      try await host.dismissAndWait(alert)
    }
  }

  /// Withdraws every shown and waiting alert (they resolve as cancelled) and forgets what was
  /// recorded, as if the recorder were new.
  public func reset() {
    let identifiers = state.withLock { state in
      let identifiers = state.records.filter { !$0.isResolved }.map(\.alert.id)
      state.records = []
      state.indices = [:]
      return identifiers
    }
    for identifier in identifiers.reversed() { host.withdraw(identifier) }
  }

  /// Ends the recorder: if it is exhaustive, every alert shown but never checked nor answered
  /// fails the test, listed with where it was shown; then alerts still shown or waiting are
  /// withdrawn (they resolve as cancelled). Runs once; scopes call it for you.
  public func finish() {
    defer { withdrawRemaining() }
    let (unchecked, waiters) = state.withLock { state in
      guard !state.isFinished else {
        return ([AlertData](), [CheckedContinuation<AlertData?, Never>]())
      }
      state.isFinished = true
      let waiters = Array(state.waiters.values)
      state.waiters = [:]
      return (
        state.records.filter { !$0.isInspected && !$0.isResolved }.map(\.alert), waiters
      )
    }
    for waiter in waiters { waiter.resume(returning: nil) }
    guard isExhaustive, !unchecked.isEmpty else { return }
    let list = unchecked.map { "  - \(DiagnosticText.quoted($0.title)) shown at \($0.callSite)" }
    TestRunnerReporter.fail(
      "This alert recorder saw \(unchecked.count) alert"
        + (unchecked.count == 1 ? "" : "s")
        + " that the test never checked or answered:\n" + list.joined(separator: "\n")
        + "\nCheck them (alerts, current, next()), answer them (tap, dismiss), "
        + "or create the recorder with exhaustive: false.",
      at: callSite)
  }

  // MARK: Internals

  /// Typed text as a failure quotes it: its first 40 characters between quotes, a line break,
  /// return or tab written as `\n`, `\r` or `\t` and any other control character made visible,
  /// then, for a longer text, `…` and its length.
  static func quotedTyping(_ text: String) -> String {
    let shown = 40
    var escaped = ""
    for scalar in text.prefix(shown).unicodeScalars {
      switch scalar {
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case "\u{2028}", "\u{2029}": escaped += "\\u{\(String(scalar.value, radix: 16))}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    let quoted = "\"" + DiagnosticText.neutralised(escaped, lineBreak: " ") + "\""
    let count = text.count
    return count > shown ? quoted.dropLast() + "…\" (\(count) characters)" : quoted
  }

  private func withdrawRemaining() {
    while let alert = host.current { host.withdraw(alert.id) }
  }

  private var shownTitles: [String] { state.withLock { $0.records.map(\.alert.title) } }

  /// Records an alert.
  ///
  /// - Returns: `false` when the recorder has finished: the alert is not recorded.
  private func record(_ alert: AlertData) -> Bool {
    state.withLock { state in
      guard !state.isFinished else { return false }
      state.indices[alert.id] = state.records.count
      state.records.append(Record(alert: alert.withoutActions))
      return true
    }
  }

  /// Notes that the action a tap of this recorder started waits on an alert it asked, unless
  /// the alert is already resolved (dropped by the host's policy, say).
  private func markAwaited(_ identifier: PresentationID, by answer: RecorderAnswer.Tag) {
    let settled = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard answer.recorder == ObjectIdentifier(self), state.answers.keys.contains(answer.id),
        let index = state.indices[identifier], !state.records[index].isResolved
      else { return [] }
      state.answers[answer.id] = identifier
      return Self.takeSettleWaiters(&state)
    }
    for waiter in settled { waiter.resume() }
  }

  /// Hands an alert that just became current to the longest-waiting `next`, if any.
  fileprivate func presented(_ alert: AlertData) {
    let delivery = state.withLock { state -> (CheckedContinuation<AlertData?, Never>, AlertData)? in
      guard let (waiter, continuation) = state.waiters.min(by: { $0.key < $1.key }),
        host.current?.id == alert.id, let taken = Self.take(alert.id, in: &state)
      else { return nil }
      state.waiters[waiter] = nil
      return (continuation, taken)
    }
    if let (continuation, alert) = delivery { continuation.resume(returning: alert) }
  }

  /// Marks a recorded alert returned by `next` and checked, unless `next` returned it before.
  private static func take(_ identifier: PresentationID, in state: inout State) -> AlertData? {
    guard let index = state.indices[identifier], !state.records[index].isReturned else {
      return nil
    }
    state.records[index].isReturned = true
    state.records[index].isInspected = true
    return state.records[index].alert
  }

  /// Starts a button's action in a task of its own and waits until every action started this
  /// way has finished or waits on an alert of this recorder.
  private func answer(
    _ request: String, _ body: @escaping @Sendable () async throws(PresentationError) -> Void
  ) async throws(AlertRecorderError) {
    let identifier = state.withLock { state in
      state.nextAnswer += 1
      state.answers[state.nextAnswer] = .some(nil)
      return state.nextAnswer
    }
    let tag = RecorderAnswer.Tag(recorder: ObjectIdentifier(self), id: identifier)
    Task {
      let failure = await RecorderAnswer.$current.withValue(tag) { () async -> PresentationError? in
        do throws(PresentationError) {
          try await body()
          return nil
        } catch {
          return error
        }
      }
      self.finishAnswer(identifier, failure: failure)
    }
    await withCheckedContinuation { continuation in
      let isSettled = state.withLock { state in
        if state.isSettled { return true }
        state.settleWaiters.append(continuation)
        return false
      }
      if isSettled { continuation.resume() }
    }
    let failed = state.withLock { $0.answerResults.removeValue(forKey: identifier) }
    if case .some(.some) = failed {
      throw .noAlert(request: request, shownSoFar: shownTitles)
    }
  }

  private func finishAnswer(_ identifier: Int, failure: PresentationError?) {
    let settled = state.withLock { state in
      state.answers[identifier] = nil
      state.answerResults[identifier] = failure
      return Self.takeSettleWaiters(&state)
    }
    for waiter in settled { waiter.resume() }
  }

  private static func takeSettleWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>]
  {
    guard state.isSettled else { return [] }
    defer { state.settleWaiters = [] }
    return state.settleWaiters
  }

  private func reportLate(_ alert: AlertData) {
    TestRunnerReporter.fail(
      "The alert \"\(alert.title)\" was shown after the recorder created at \(callSite) "
        + "finished, so nobody can answer it; it resolves as dropped (no host). "
        + "Await the task that shows it before the recorder's scope ends, or cancel it.",
      at: alert.callSite)
  }

  /// How many calls to ``next(timeout:clock:)`` wait for an alert now.
  var waiterCount: Int { state.withLock { $0.waiters.count } }

  private func resumeWaiter(_ identifier: Int, with alert: AlertData?) {
    let waiter = state.withLock { $0.waiters.removeValue(forKey: identifier) }
    waiter?.resume(returning: alert)
  }

  /// Marks an alert resolved; an action that waited on it runs again.
  private func markResolved(_ identifier: PresentationID) {
    state.withLock { state in
      if !state.typedTexts.isEmpty { state.typedTexts[identifier] = nil }
      if let index = state.indices[identifier] {
        state.records[index].isResolved = true
      }
      let resumed = state.answers.filter { $0.value == identifier }.keys
      for answer in resumed { state.answers[answer] = .some(nil) }
    }
  }

  private static func textField(
    labelled label: String, in alert: AlertData
  ) throws(AlertRecorderError) -> Int {
    let fields = alert.textFields
    switch match(label, among: fields.indices, named: { fields[$0].label }) {
    case .one(let index): return index
    case .none: throw .noSuchTextField(label, alert: alert.title, fields: fields.map(\.label))
    case .several(let matches):
      throw .ambiguousTextField(
        label, alert: alert.title, matches: matches.map { fields[$0].label })
    }
  }

  private static func button(
    titled title: String, in alert: AlertData
  ) throws(AlertRecorderError) -> AlertButton {
    let buttons = alert.buttons
    switch match(title, among: buttons.indices, named: { buttons[$0].title }) {
    case .one(let index): return buttons[index]
    case .none: throw .noSuchButton(title, alert: alert.title, buttons: buttons.map(\.title))
    case .several(let matches):
      throw .ambiguousButton(title, alert: alert.title, matches: matches.map { buttons[$0].title })
    }
  }

  /// Which of the names a test means by `name`: the one equal to it, or else the ones equal to
  /// it when letter case is ignored.
  private enum Match {
    case one(Int)
    case none
    case several([Int])
  }

  private static func match(
    _ name: String, among indices: Range<Int>, named nameAt: (Int) -> String
  ) -> Match {
    if let exact = indices.first(where: { nameAt($0) == name }) { return .one(exact) }
    let matches = indices.filter { nameAt($0).lowercased() == name.lowercased() }
    switch matches.count {
    case 0: return .none
    case 1: return .one(matches[0])
    default: return .several(matches)
    }
  }
}

/// The button action a recorder's `tap` or `dismiss` started, for the task that runs it.
enum RecorderAnswer {
  struct Tag: Sendable {
    let recorder: ObjectIdentifier
    let id: Int
  }

  @TaskLocal static var current: Tag?
}

/// The recorder host's presenter: tells the recorder which alert became current.
///
/// `@unchecked Sendable`: its one reference is written once, in the recorder's `init`, before
/// the host can present anything, and only read after.
private final class PresentationRelay: Presenter, @unchecked Sendable {
  private weak var recorder: AlertRecorder?

  func connect(to recorder: AlertRecorder) {
    self.recorder = recorder
  }

  func present(_ alert: AlertData, in host: AlertHost) {
    recorder?.presented(alert)
  }

  func withdraw(_ alert: AlertData, from host: AlertHost) {}
}
