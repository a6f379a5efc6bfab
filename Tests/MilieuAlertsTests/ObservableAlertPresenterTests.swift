import Dispatch
import Foundation
@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTestSupport
import Observation
import Testing

/// Every test runs on the main actor and watches the presenter through
/// `withObservationTracking`, as SwiftUI does.
@Suite(.timeLimit(.minutes(1)))
@MainActor struct ObservableAlertPresenterTests {
  @Test func showingAnAlertNotifies() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let watch = ObservationWatch { _ = presenter.alert }
    let alert = AlertData(title: "Saved")
    host.show(alert)
    await watch.changed()
    #expect(presenter.alert?.id == alert.id)
    #expect(presenter.textFields.isEmpty)
  }

  @Test func answeringNotifiesAndShowsTheNextAlert() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let outcomes = Outcomes()
    let first = AlertData(title: "First", buttons: [.default("Go"), .cancel()])
    let second = AlertData(title: "Second")
    await show(first, in: host, to: presenter) { outcomes.append($0) }
    host.show(second) { outcomes.append($0) }

    // SwiftUI sets `isPresented` to false as a tapped alert goes away, before or after the
    // button's action: that changes nothing, and the tap still counts.
    #expect(presenter.isPresented)
    presenter.isPresented = false
    #expect(presenter.isPresented && presenter.alert?.id == first.id)

    let watch = ObservationWatch { _ = presenter.isPresented }
    try presenter.tap(first.buttons[0], of: first)
    // Before `tap` returns, the observer was told and the next alert is shown.
    #expect(watch.hasChanged)
    #expect(presenter.alert?.id == second.id)
    #expect(host.current?.id == second.id)
    #expect(outcomes.all == [.answered(AlertTap(first.buttons[0], at: 0))])

    let dismissal = ObservationWatch { _ = presenter.alert }
    try presenter.dismiss(second)
    #expect(dismissal.hasChanged)
    #expect(presenter.alert == nil && !presenter.isPresented && host.current == nil)
    #expect(outcomes.all.last == .dismissed)
  }

  @Test func anAnswerToAnAlertNoLongerShownChangesNothingAndSaysWhy() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let outcomes = Outcomes()
    let first = AlertData(title: "First")
    let second = AlertData(title: "Second")
    await show(first, in: host, to: presenter) { outcomes.append($0) }
    host.show(second) { outcomes.append($0) }
    try presenter.tap(first.buttons[0], of: first)

    let watch = ObservationWatch { _ = presenter.alert }
    let stale = PresentationError.notCurrent(first.id, title: "First", current: second.id)
    #expect(throws: stale) { try presenter.tap(first.buttons[0], of: first) }
    #expect(throws: stale) { try presenter.dismiss(first) }
    #expect(
      stale.description
        == "\(first.id) \"First\" is not the one shown (\(second.id) is); it was already "
        + "answered, replaced or withdrawn, so the answer changes nothing. Answer the host's "
        + "current item.")
    let stranger = AlertData(title: "Never shown")
    #expect(
      throws: PresentationError.notCurrent(stranger.id, title: "Never shown", current: second.id)
    ) {
      try presenter.tap(stranger.buttons[0], of: stranger)
    }
    // A button of another alert, on the alert shown: refused by the host, and nothing changes.
    #expect(throws: PresentationError.self) { try presenter.tap(first.buttons[0], of: second) }

    #expect(!watch.hasChanged)
    #expect(presenter.alert?.id == second.id && host.current?.id == second.id)
    #expect(outcomes.all.count == 1)
  }

  @Test func textFieldsAreBindableAndTheirTextComesBackWithTheTap() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let outcomes = Outcomes()
    let alert = AlertData(
      title: "Sign in to Sync",
      textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("Password")],
      buttons: [.default("Sign In"), .cancel()])
    await show(alert, in: host, to: presenter) { outcomes.append($0) }
    #expect(presenter.textFields.map(\.label) == ["Email", "Password"])
    #expect(presenter.textFields.map(\.isSecure) == [false, true])

    let typing = ObservationWatch { _ = presenter.textFields }
    presenter.textFields[1].text = "hunter2"
    #expect(typing.hasChanged)
    try presenter.tap(alert.buttons[0], of: alert)
    let tap = try #require(outcomes.all.first?.tappedButton)
    #expect(tap.text(of: "Email") == "ada@example.com")
    #expect(tap.text(of: "Password") == "hunter2")
    #expect(presenter.textFields.isEmpty)
  }

  @Test func aWithdrawnAlertGoesAway() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(policy: .replace, presenter: presenter)
    let first = AlertData(title: "First")
    await show(first, in: host, to: presenter)
    let replaced = ObservationWatch { _ = presenter.alert }
    let second = AlertData(title: "Second")
    host.show(second)
    await replaced.changed()
    #expect(presenter.alert?.id == second.id)

    let replacedAgain = ObservationWatch { _ = presenter.alert }
    let asking = Task { await host.outcome(of: AlertData(title: "Third")) }
    await replacedAgain.changed()
    #expect(presenter.alert?.title == "Third")
    let cancelled = ObservationWatch { _ = presenter.alert }
    asking.cancel()
    #expect(await asking.value == .dropped(.cancelled))
    await cancelled.changed()
    #expect(presenter.alert == nil)
  }

  @Test func anAlertTheHostAnsweredItselfGivesWayAtTheNextAnswer() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let first = AlertData(title: "First")
    let second = AlertData(title: "Second")
    await show(first, in: host, to: presenter)
    host.show(second)
    try host.dismiss(first)  // not through the presenter, which still shows "First"
    #expect(host.current?.id == second.id)

    #expect(throws: PresentationError.notCurrent(first.id, title: "First", current: second.id)) {
      try presenter.tap(first.buttons[0], of: first)
    }
    #expect(presenter.alert?.id == second.id)
  }

  @Test func anAlertShownKeepsNoHostAlive() async throws {
    let presenter = ObservableAlertPresenter()
    var host: AlertHost? = AlertHost(presenter: presenter)
    let outcomes = Outcomes()
    let alert = AlertData(title: "Orphan")
    let freed = WeakReference(host)
    #expect(freed.object != nil)
    if let host { await show(alert, in: host, to: presenter) { outcomes.append($0) } }
    host = nil
    #expect(freed.object == nil)
    #expect(outcomes.all == [.dropped(.hostDeallocated)])
    // Nobody can take an answer now: the tap says so, and the presenter lets the alert go.
    #expect(throws: PresentationError.notCurrent(alert.id, title: "Orphan", current: nil)) {
      try presenter.tap(alert.buttons[0], of: alert)
    }
    #expect(presenter.alert == nil)
  }

  /// A host freed with its alert shown takes the alert away: the presenter shows the next
  /// host's alert, which waited behind it, instead of the dead one.
  @Test func aFreedHostsAlertGivesWayToTheNextHosts() async throws {
    let presenter = ObservableAlertPresenter()
    var sheet: AlertHost? = AlertHost(presenter: presenter)
    let app = AlertHost(presenter: presenter)
    let fromSheet = AlertData(title: "From the sheet")
    let fromApp = AlertData(title: "From the app")
    if let sheet { await show(fromSheet, in: sheet, to: presenter) }
    app.show(fromApp)
    let freed = ObservationWatch { _ = presenter.alert }
    sheet = nil
    await freed.changed()
    #expect(presenter.alert?.id == fromApp.id)
    try presenter.dismiss(fromApp)
    #expect(presenter.alert == nil && app.current == nil)
  }

  /// Another thread is inside the host, running the completion of an alert dropped as a
  /// duplicate, and stays there while the main actor taps: the tap still hands the presenter
  /// the next alert before it returns, rather than leave it to the busy thread.
  @Test func aTapWhileAnotherThreadRunsACompletionInTheHostShowsTheNextAlertAtOnce() async throws {
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(presenter: presenter)
    let first = AlertData(title: "First", deduplicationKey: "first")
    let second = AlertData(title: "Second")
    await show(first, in: host, to: presenter)
    host.show(second)
    let release = DispatchSemaphore(value: 0)
    defer { release.signal() }
    await withCheckedContinuation { (inside: CheckedContinuation<Void, Never>) in
      Thread {
        host.show(AlertData(title: "First again", deduplicationKey: "first")) { _ in
          inside.resume()
          release.wait()
        }
      }.start()
    }
    let watch = ObservationWatch { _ = presenter.alert }
    try presenter.tap(first.buttons[0], of: first)
    #expect(watch.hasChanged)
    #expect(presenter.alert?.id == second.id)
    #expect(host.current?.id == second.id)
  }

  /// The thread that presented the shown alert is preempted inside the presenter's `present`
  /// (here, held there) while the main actor taps: the host hands the next alert's
  /// presentation to that thread, one call at a time, yet the tap shows it before it returns,
  /// and the message that comes later does not show it twice.
  @Test func aTapWhileAnotherThreadIsInsideThePresenterShowsTheNextAlertAtOnce() async throws {
    let presenter = ObservableAlertPresenter()
    let release = DispatchSemaphore(value: 0)
    let entered = Lock<CheckedContinuation<Void, Never>?>(nil)
    let host = AlertHost(
      presenter: HoldingPresenter(inner: presenter) {
        entered.withLock { $0.take() }?.resume()
        release.wait()
      })
    let first = AlertData(title: "First")
    let second = AlertData(title: "Second")
    let shown = ObservationWatch { _ = presenter.alert }
    await withCheckedContinuation { (inside: CheckedContinuation<Void, Never>) in
      entered.withLock { $0 = inside }
      Thread { host.show(first) }.start()
    }
    defer { release.signal() }
    await shown.changed()
    host.show(second)
    try presenter.tap(first.buttons[0], of: first)
    #expect(presenter.alert?.id == second.id)
    #expect(host.current?.id == second.id)

    // The held thread presents the second alert now; its message must not show it again.
    await withCheckedContinuation { (inside: CheckedContinuation<Void, Never>) in
      entered.withLock { $0 = inside }
      release.signal()
    }
    try presenter.dismiss(second)
    #expect(presenter.alert == nil && host.current == nil)
  }

  @Test func alertsOfTwoHostsTakeTurns() async throws {
    let presenter = ObservableAlertPresenter()
    let app = AlertHost(presenter: presenter)
    let sheet = AlertHost(presenter: presenter)
    let fromApp = AlertData(title: "From the app")
    let fromSheet = AlertData(title: "From the sheet")
    await show(fromApp, in: app, to: presenter)
    let queued = ObservationWatch { _ = presenter.alert }
    sheet.show(fromSheet)
    #expect(sheet.current?.id == fromSheet.id)
    // The sheet's alert waits in the presenter behind the app's; let every drain run.
    for _ in 0..<100 { await Task.yield() }
    #expect(!queued.hasChanged)
    #expect(presenter.alert?.id == fromApp.id)
    try presenter.dismiss(fromApp)
    #expect(presenter.alert?.id == fromSheet.id)
    try presenter.dismiss(fromSheet)
    #expect(presenter.alert == nil && app.current == nil && sheet.current == nil)
  }

  @Test func installingItIsOneCallOnANode() async throws {
    let presenter = ObservableAlertPresenter()
    let app = EnvironmentNode("app")
    app.installAlertHost(presenter: presenter)
    let watch = ObservationWatch { _ = presenter.alert }
    app.child("deep").child("deeper")[\.showAlert](title: "From deep down")
    await watch.changed()
    #expect(presenter.alert?.title == "From deep down")
  }

  /// 8 threads show 100 alerts each, all at once, while the main actor answers each alert as it
  /// is shown: every one reaches the observer, in the order the host presented them.
  @Test func alertsShownFromEightThreadsAllReachTheObserverInOrder() async throws {
    let threads = 8
    let perThread = 100
    let presenter = ObservableAlertPresenter()
    let host = AlertHost(
      policy: PresentationPolicy(maximumPending: threads * perThread), presenter: presenter)
    let events = host.events()
    let producers = Task.detached {
      onThreads(threads) { thread in
        for index in 0..<perThread { host.show(AlertData(title: "\(thread)/\(index)")) }
      }
    }

    var observed: [AlertData] = []
    while observed.count < threads * perThread {
      guard let alert = presenter.alert else {
        let watch = ObservationWatch { _ = presenter.alert }
        await watch.changed()
        continue
      }
      observed.append(alert)
      let watch = ObservationWatch { _ = presenter.alert }
      try presenter.tap(alert.buttons[0], of: alert)
      #expect(watch.hasChanged, "answering \(alert.title) did not notify")
    }
    await producers.value

    var presented: [PresentationID] = []
    for await event in events {
      if case .presented(let alert) = event { presented.append(alert.id) }
      if presented.count == threads * perThread { break }
    }
    #expect(observed.map(\.id) == presented)
    #expect(Set(observed.map(\.id)).count == threads * perThread)
    for thread in 0..<threads {
      let indices = observed.compactMap { alert -> Int? in
        let parts = alert.title.split(separator: "/")
        return parts[0] == "\(thread)" ? Int(parts[1]) : nil
      }
      #expect(indices == Array(0..<perThread), "thread \(thread)'s alerts out of order")
    }
    #expect(presenter.alert == nil && host.current == nil)
  }

  /// Shows an alert in a host and waits until the presenter shows it.
  private func show(
    _ alert: AlertData, in host: AlertHost, to presenter: ObservableAlertPresenter,
    completion: (@Sendable (AlertOutcome) -> Void)? = nil
  ) async {
    let watch = ObservationWatch { _ = presenter.alert }
    host.show(alert, completion: completion)
    await watch.changed()
    #expect(presenter.alert?.id == alert.id)
  }
}

/// Hands every call to an observable presenter, then, for a presentation, runs `hold` before
/// it returns: the thread stays inside the presenter, as one preempted there would.
private struct HoldingPresenter: Presenter {
  let inner: ObservableAlertPresenter
  let hold: @Sendable () -> Void

  func present(_ alert: AlertData, in host: AlertHost) {
    inner.present(alert, in: host)
    hold()
  }

  func withdraw(_ alert: AlertData, from host: AlertHost) {
    inner.withdraw(alert, from: host)
  }
}

/// Watches what `read` reads of observable objects, through `withObservationTracking`, from the
/// moment it is made: the first change after that is recorded.
@MainActor
final class ObservationWatch {
  private let change = Change()

  init(_ read: () -> Void) {
    let change = change
    withObservationTracking(read) { change.record() }
  }

  /// Whether a change has come.
  var hasChanged: Bool { change.state.withLock { $0.hasChanged } }

  /// Waits for the change. A change that never comes fails the test when the suite's time
  /// limit cancels it.
  func changed(sourceLocation: SourceLocation = #_sourceLocation) async {
    let change = change
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let isOver = change.state.withLock { state in
          if state.hasChanged || state.isCancelled { return true }
          state.waiter = continuation
          return false
        }
        if isOver { continuation.resume() }
      }
    } onCancel: {
      change.cancel()
    }
    if !hasChanged { Issue.record("the change never came", sourceLocation: sourceLocation) }
  }

  private final class Change: Sendable {
    struct State {
      var hasChanged = false
      var isCancelled = false
      var waiter: CheckedContinuation<Void, Never>?
    }
    let state = Lock(State())

    func record() {
      state.withLock { $0.hasChanged = true }
      resumeWaiter()
    }

    func cancel() {
      state.withLock { $0.isCancelled = true }
      resumeWaiter()
    }

    private func resumeWaiter() {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }
}
