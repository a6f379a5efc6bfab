import Milieu
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

  private struct State: Sendable {
    var records: [Record] = []
    var nextUnread = 0
    var waiters: [Int: CheckedContinuation<AlertData?, Never>] = [:]
    var nextWaiter = 0
    var isFinished = false
  }

  /// An alert as recorded: without its button actions, so that the history keeps nothing alive
  /// (an action that captures a service would otherwise tie the service, its node and this
  /// recorder into a cycle).
  private struct Record: Sendable {
    let alert: AlertData
    var isInspected = false
    var isResolved = false
  }

  /// Creates a recorder. Install its ``action`` where the code under test reads `showAlert`.
  ///
  /// ```swift
  /// let recorder = AlertRecorder(exhaustive: false)
  /// let node = EnvironmentNode("test") { $0.showAlert = recorder.action }
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
    host = AlertHost(policy: policy)
    isExhaustive = exhaustive
    callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  deinit {
    finish()
  }

  /// The `showAlert` action that records into this recorder.
  public var action: ShowAlertAction {
    ShowAlertAction(
      engine: PresentationAction { [self] alert, resolution in
        record(alert)
        host.show(
          alert,
          resolution: Resolution { [weak self] outcome in
            self?.markResolved(alert.id)
            resolution?.resolve(outcome)
          })
      } withdraw: { [host] id in
        host.withdraw(id)
      })
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
      if let index = state.records.firstIndex(where: { $0.alert.id == alert.id }) {
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

  /// Waits for the next alert the test has not yet received from `next`, in the order shown.
  ///
  /// ```swift
  /// Task { await importer.run() }          // shows an alert later
  /// let alert = try await recorder.next()  // fails clearly if none comes in ten seconds
  /// ```
  ///
  /// The timeout only bounds a wait that has already failed: `next` returns as soon as the alert
  /// is shown, so a generous bound costs a passing test nothing, while a tight one can fail a
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
  /// - Returns: The alert.
  /// - Throws: ``AlertRecorderError/timedOut(after:shownSoFar:)`` when no alert arrives in time.
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
        if state.nextUnread < state.records.count {
          state.records[state.nextUnread].isInspected = true
          state.nextUnread += 1
          return state.records[state.nextUnread - 1].alert
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
      throw .timedOut(after: timeout, shownSoFar: state.withLock { $0.records.map(\.alert.title) })
    }
    return alert
  }

  // MARK: Answering

  /// Taps the current alert's button with a title, runs its action to the end, and resolves the
  /// alert; the next waiting alert becomes current.
  ///
  /// The title is matched exactly, or else ignoring letter case when that finds one button.
  ///
  /// - Parameter title: The button's title.
  /// - Throws: ``AlertRecorderError`` when no alert is shown, it has no such button, or the title
  ///   is ambiguous.
  public func tap(_ title: String) async throws(AlertRecorderError) {
    guard let alert = current else {
      throw .noAlert(request: "tap(\"\(title)\")", shownSoFar: shownTitles)
    }
    let button = try Self.button(titled: title, in: alert)
    do {
      try await host.tap(button, of: alert)
    } catch {
      throw .noAlert(request: "tap(\"\(title)\")", shownSoFar: shownTitles)
    }
  }

  /// Dismisses the current alert, which runs its cancel button's action, and resolves it.
  ///
  /// - Throws: ``AlertRecorderError/noAlert(request:shownSoFar:)`` when no alert is shown.
  public func dismiss() async throws(AlertRecorderError) {
    guard let alert = current else {
      throw .noAlert(request: "dismiss()", shownSoFar: shownTitles)
    }
    do {
      try await host.dismiss(alert)
    } catch {
      throw .noAlert(request: "dismiss()", shownSoFar: shownTitles)
    }
  }

  /// Withdraws every shown and waiting alert (they resolve as cancelled) and forgets what was
  /// recorded, as if the recorder were new.
  public func reset() {
    let identifiers = state.withLock { state in
      let identifiers = state.records.filter { !$0.isResolved }.map(\.alert.id)
      state.records = []
      state.nextUnread = 0
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
      "The alert recorder created at \(callSite) saw \(unchecked.count) alert"
        + (unchecked.count == 1 ? "" : "s")
        + " that the test never checked or answered:\n" + list.joined(separator: "\n")
        + "\nCheck them (alerts, current, next()), answer them (tap, dismiss), "
        + "or create the recorder with exhaustive: false.",
      at: callSite)
  }

  // MARK: Internals

  private func withdrawRemaining() {
    while let alert = host.current { host.withdraw(alert.id) }
  }

  private var shownTitles: [String] { state.withLock { $0.records.map(\.alert.title) } }

  private func record(_ alert: AlertData) {
    let delivery = state.withLock { state -> (CheckedContinuation<AlertData?, Never>, AlertData)? in
      state.records.append(Record(alert: alert.withoutActions))
      guard let (identifier, waiter) = state.waiters.min(by: { $0.key < $1.key }) else {
        return nil
      }
      state.waiters[identifier] = nil
      state.records[state.nextUnread].isInspected = true
      state.nextUnread += 1
      return (waiter, state.records[state.nextUnread - 1].alert)
    }
    if let (waiter, alert) = delivery { waiter.resume(returning: alert) }
  }

  /// How many calls to ``next(timeout:clock:)`` wait for an alert now.
  var waiterCount: Int { state.withLock { $0.waiters.count } }

  private func resumeWaiter(_ identifier: Int, with alert: AlertData?) {
    let waiter = state.withLock { $0.waiters.removeValue(forKey: identifier) }
    waiter?.resume(returning: alert)
  }

  private func markResolved(_ identifier: PresentationID) {
    state.withLock { state in
      if let index = state.records.firstIndex(where: { $0.alert.id == identifier }) {
        state.records[index].isResolved = true
      }
    }
  }

  private static func button(
    titled title: String, in alert: AlertData
  ) throws(AlertRecorderError) -> AlertButton {
    if let exact = alert.button(titled: title) { return exact }
    let matches = alert.buttons.filter { $0.title.lowercased() == title.lowercased() }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw .noSuchButton(title, alert: alert.title, buttons: alert.buttons.map(\.title))
    default: throw .ambiguousButton(title, alert: alert.title, matches: matches.map(\.title))
    }
  }
}
