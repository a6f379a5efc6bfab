import Milieu
import MilieuAlerts
import MilieuTestSupport
import MilieuTesting
import Synchronization
import Testing

/// An object a button action captures, to watch when the action is freed.
final class Captured: Sendable {
  func touch() {}
}

/// The ways an alert can resolve, each of which must free the alert's button actions.
enum Resolving: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case tap, tapAndWait, dismiss, cancelAwaitingTask, duplicate, queueFull, replaced, busy
  case hostDeallocated, noHost, unanswered

  var testDescription: String { rawValue }

  var policy: PresentationPolicy {
    switch self {
    case .queueFull: PresentationPolicy(maximumPending: 0)
    case .replaced: .replace
    case .busy: .dropNew
    default: .queue
    }
  }
}

/// Weak-reference checks: what alerts, hosts and recorders keep alive, and what they let go.
@Suite struct AlertLeakTests {
  /// An alert, resolved in any way, frees its button actions (and what they capture) once the
  /// caller lets go of the alert; the host it went through, still alive, keeps nothing of it.
  @Test(arguments: Resolving.allCases)
  func aResolvedAlertFreesItsButtonActions(_ resolving: Resolving) async {
    let host = AlertHost(policy: resolving.policy)
    let (captured, outcome, expected) = await Self.resolveAnAlertCapturing(resolving, in: host)
    #expect(outcome == expected)
    await eventually("the button actions of an alert resolved by \(resolving) are freed") {
      captured.object == nil
    }
  }

  /// Shows an alert whose buttons capture a fresh object, resolves it, and returns a weak
  /// reference to the object, the outcome and the outcome expected; nothing else escapes.
  static func resolveAnAlertCapturing(
    _ resolving: Resolving, in host: AlertHost
  ) async -> (captured: WeakReference<Captured>, AlertOutcome, expected: AlertOutcome) {
    let captured = Captured()
    let alert = AlertData(
      title: "Delete?",
      buttons: [.destructive("Delete") { captured.touch() }, .cancel { captured.touch() }],
      deduplicationKey: resolving == .duplicate ? "same" : nil)
    let reference = WeakReference(captured)
    let action = ShowAlertAction(host: host)
    let first = AlertData(title: "First", deduplicationKey: "same")
    switch resolving {
    case .tap, .tapAndWait, .dismiss, .cancelAwaitingTask:
      let waiter = Task { await action.ask(alert) }
      await eventually("the alert is shown") { host.current?.id == alert.id }
      do {
        switch resolving {
        case .tap: try Self.answerWithoutWaiting(alert, in: host, tapping: alert.buttons[0])
        case .tapAndWait: try await host.tapAndWait(alert.buttons[0], of: alert)
        case .dismiss: try Self.answerWithoutWaiting(alert, in: host, tapping: nil)
        default: waiter.cancel()
        }
      } catch {
        Issue.record("the answer was refused: \(error)")
      }
      let expected: AlertOutcome =
        switch resolving {
        case .tap, .tapAndWait: alert.tapOfButton(at: 0).map { .answered($0) } ?? .dismissed
        case .dismiss: .dismissed
        default: .dropped(.cancelled)
        }
      return (reference, await waiter.value, expected)
    case .duplicate, .busy, .queueFull:
      host.show(first)
      let expected: AlertOutcome =
        switch resolving {
        case .duplicate: .dropped(.duplicate(of: first.id))
        case .busy: .dropped(.busy)
        default: .dropped(.queueFull(limit: 0))
        }
      return (reference, await action.ask(alert), expected)
    case .replaced:
      let waiter = Task { await action.ask(alert) }
      await eventually("the alert is shown") { host.current?.id == alert.id }
      let newer = AlertData(title: "Newer")
      host.show(newer)
      return (reference, await waiter.value, .dropped(.replaced(by: newer.id)))
    case .hostDeallocated:
      var gone: AlertHost? = AlertHost()
      let goneAction = gone.map { ShowAlertAction(host: $0) }
      let waiter = Task { await goneAction?.ask(alert) ?? .dismissed }
      await eventually("the alert is shown") { gone?.current?.id == alert.id }
      gone = nil
      return (reference, await waiter.value, .dropped(.hostDeallocated))
    case .noHost:
      let outcome = await collectingIssuesAsync { await ShowAlertAction.noHost.ask(alert) }
      return (reference, outcome.result, .dropped(.noHost))
    case .unanswered:
      return (reference, await ShowAlertAction { _, _ in }.ask(alert), .dropped(.unanswered))
    }
  }

  /// Taps a button, or dismisses, with the synchronous forms, whose actions run in a new task.
  static func answerWithoutWaiting(
    _ alert: AlertData, in host: AlertHost, tapping button: AlertButton?
  ) throws(PresentationError) {
    if let button {
      try host.tap(button, of: alert)
    } else {
      try host.dismiss(alert)
    }
  }

  /// A host installed on a node that is dropped frees itself: every awaiter, waiting or shown,
  /// resolves as dropped because the host was deallocated; completions too; and event streams
  /// finish after reporting each drop.
  @Test func aHostNobodyReferencesFreesItselfAndResolvesItsAwaiters() async {
    var sheet: EnvironmentNode? = EnvironmentNode("app").child("sheet")
    guard let (actions, weakHost, events) = sheet.map(Self.installHost(on:)) else { return }
    let completions = Outcomes()
    let waiters = actions.enumerated().map { index, action in
      Task { await action.ask(title: "Question \(index)") }
    }
    await eventually("every alert reached the host") {
      weakHost.object?.pendingCount == actions.count - 1
    }
    actions[0](AlertData(title: "Fire and forget")) { completions.append($0) }

    // Actions hold their host weakly: the node was its only owner.
    sheet = nil
    #expect(weakHost.object == nil)
    for waiter in waiters {
      #expect(await waiter.value == .dropped(.hostDeallocated))
    }
    #expect(completions.all == [.dropped(.hostDeallocated)])
    var kinds: [String] = []
    for await event in events {
      switch event {
      case .enqueued: kinds.append("enqueued")
      case .presented: kinds.append("presented")
      case .dropped(_, let reason): kinds.append("dropped: \(reason)")
      case .answered, .dismissed: kinds.append("answered")
      }
    }
    let alerts = actions.count + 1
    // The first presented at once, the others enqueued, then every one dropped.
    #expect(kinds.count == 2 * alerts)
    #expect(kinds.suffix(alerts).allSatisfy { $0 == "dropped: the host was deallocated" })
    #expect(await actions[0].ask(title: "Late") == .dropped(.hostDeallocated))
  }

  /// An alert nobody answers, shown from a node below the host's, keeps neither that node nor,
  /// through it, the host alive: the host is freed with its node, and the alert resolves.
  @Test func anUnansweredAlertKeepsNeitherTheNodeThatShowedItNorItsHost() async {
    var sheet: EnvironmentNode? = EnvironmentNode("app").child("sheet")
    let completions = Outcomes()
    let weakHost = WeakReference(
      sheet?.installAlertHost(presenter: RecordingPresenter<AlertData>()))
    let weakForm: WeakReference<EnvironmentNode> = {
      guard let form = sheet?.child("form") else { return WeakReference(EnvironmentNode()) }
      form.withCurrent {
        form[\.showAlert](AlertData(title: "Unanswered")) { completions.append($0) }
      }
      return WeakReference(form)
    }()
    #expect(weakHost.object?.current?.title == "Unanswered")

    sheet = nil
    #expect(weakForm.object == nil, "the host keeps the node that showed its alert")
    #expect(weakHost.object == nil, "the host lives on through the node that showed its alert")
    #expect(completions.all == [.dropped(.hostDeallocated)])
  }

  /// Installs a host with a presenter on `sheet` and returns the `showAlert` of three nodes below
  /// it, a weak reference to the host and its event stream. The nodes below are not kept.
  static func installHost(on sheet: EnvironmentNode) -> (
    [ShowAlertAction], WeakReference<AlertHost>, AsyncStream<PresentationEvent<AlertData>>
  ) {
    let host = sheet.installAlertHost(presenter: RecordingPresenter<AlertData>())
    let actions = (0..<3).map { sheet.child("form \($0)")[\.showAlert] }
    return (actions, WeakReference(host), host.events())
  }

  /// Removing a host's override frees the host, even after nodes below read through it, and its
  /// awaiters resolve.
  @Test func anUninstalledHostIsFreedThoughDescendantsReadIt() async {
    let app = EnvironmentNode("app")
    let leaf = app.child("sheet").child("form")
    let weakHost = WeakReference(app.installAlertHost())
    let action = leaf[\.showAlert]
    let waiter = Task { await action.ask(title: "Waiting") }
    await eventually("the alert is shown") { weakHost.object?.current != nil }

    app.removeOverride(\.alertHost)
    app.removeOverride(\.showAlert)
    #expect(weakHost.object == nil, "the form's cached snapshot keeps the uninstalled host alive")
    if weakHost.object != nil { waiter.cancel() }
    #expect(await waiter.value == .dropped(.hostDeallocated))
  }

  /// An event stream's consumer and a presenter do not keep a host alive.
  @Test func subscribersAndPresentersDoNotKeepTheHostAlive() async {
    let presenter = RecordingPresenter<AlertData>()
    let (weakHost, events) = {
      let host = AlertHost(presenter: presenter)
      host.show(AlertData(title: "Shown"))
      return (WeakReference(host), host.events())
    }()
    #expect(weakHost.object == nil)
    var count = 0
    for await _ in events { count += 1 }
    #expect(count == 1)  // "Shown", dropped as the host went away
    #expect(presenter.entries == ["present Shown", "withdraw Shown"])
  }

  // MARK: AlertRecorder

  /// When a recorder's scope ends, the recorder and its host are freed, and an alert still
  /// waiting for an answer is withdrawn — it resolves as cancelled — instead of leaving its task
  /// suspended forever.
  @Test func aRecorderFreesItselfAndResolvesItsAwaitersWhenItsScopeEnds() async throws {
    let (weakRecorder, waiter) = try await withAlertRecorder(exhaustive: false) { recorder in
      let showAlert = EnvironmentNode.current[\.showAlert]
      let waiter = Task { await showAlert.ask(title: "Left unanswered") }
      let shown = try await recorder.next()
      #expect(shown.title == "Left unanswered")
      return (WeakReference(recorder), waiter)
    }
    let resolved = Atomic<Bool>(false)
    let watcher = Task {
      let outcome = await waiter.value
      resolved.store(true, ordering: .releasing)
      return outcome
    }
    await eventually("the awaiter of a finished recorder resolves by itself") {
      resolved.load(ordering: .acquiring)
    }
    if !resolved.load(ordering: .acquiring) { waiter.cancel() }
    #expect(await watcher.value == .dropped(.cancelled))
    await eventually("the recorder is freed") { weakRecorder.object == nil }
  }

  /// `reset()` lets go of the recorded alerts and their button actions, while the recorder
  /// lives on.
  @Test func aRecorderResetFreesTheAlertsItRecorded() async throws {
    try await withAlertRecorder { recorder in
      let captured = Self.showAlertCapturing()
      try await recorder.tap("Go")
      recorder.reset()
      await eventually("the recorded alert's actions are freed") { captured.object == nil }
    }
  }

  /// Shows, through the current `showAlert`, an alert whose button captures a fresh object.
  static func showAlertCapturing() -> WeakReference<Captured> {
    let captured = Captured()
    EnvironmentNode.current[\.showAlert](
      title: "Recorded", buttons: [.default("Go") { captured.touch() }, .cancel()])
    return WeakReference(captured)
  }

  /// A recorder installed on a node is freed with the node, and takes its host along.
  @Test func aRecorderInstalledOnANodeIsFreedWithIt() {
    let (weakRecorder, weakHost) = {
      let node = EnvironmentNode("test")
      let recorder = node.installAlertRecorder()
      node[\.showAlert](title: "Checked")
      #expect(recorder.title == "Checked")
      return (WeakReference(recorder), WeakReference(recorder.host))
    }()
    #expect(weakRecorder.object == nil)
    #expect(weakHost.object == nil)
  }
}
