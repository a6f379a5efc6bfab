import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing

enum NoteAlert: AlertProvider {
  case deleteFailed(name: String)

  var alert: AlertData {
    switch self {
    case .deleteFailed(let name): AlertData(title: "Could not delete \(name)")
    }
  }
}

struct DeepService {
  @Environment(\.showAlert) var showAlert
  func warn() { showAlert(title: "Careful") }
}

@Suite struct ShowAlertActionTests {
  @Test func withNoHostTheCallSiteIsReportedAndTheAlertDropped() async {
    let line: UInt = #line + 2
    let (outcome, issues) = await collectingIssuesAsync {
      await EnvironmentNode.current[\.showAlert].ask(title: "Nobody listens")
    }
    #expect(outcome == .dropped(.noHost))
    #expect(issues.count == 1)
    #expect(issues.first?.location.line == line)
    #expect(issues.first?.location.fileID == #fileID)
    #expect(
      issues.first?.message.contains("\"Nobody listens\" was dropped: no host is installed") == true
    )
    #expect(issues.first?.message.contains("installAlertHost()") == true)
  }

  @Test func aNestedServiceReachesTheHostAtTheRoot() {
    let app = EnvironmentNode("app")
    let host = app.installAlertHost()
    let leaf = app.child("library").child("folder").child("note")
    let service = leaf.withCurrent { DeepService() }
    service.warn()
    #expect(host.current?.title == "Careful")
    #expect(app[\.alertHost] === host)
  }

  /// `showAlert(title:…)` and `ask(title:…)` take what `AlertData` takes, text fields and a
  /// priority included, so that a caller need not make the alert first.
  @Test func theTitleFormsTakeTextFieldsAndAPriority() async throws {
    let app = EnvironmentNode("app")
    let host = app.installAlertHost()
    let showAlert = app[\.showAlert]
    showAlert(title: "Shown", message: "first")
    showAlert(
      title: "Rename", textFields: [AlertTextField("Name", text: "Roadmap")],
      buttons: [.default("Rename"), .cancel()], priority: .high)
    let asking = Task {
      await showAlert.ask(
        title: "Sign in", textFields: [.secure("Password")], buttons: [.default("Go")],
        priority: .low)
    }
    await eventually("the third alert waits") { host.pendingCount == 2 }
    #expect(host.pending.map(\.title) == ["Rename", "Sign in"])
    #expect(host.pending.map(\.priority) == [.high, .low])
    #expect(host.pending.map { $0.textFields.map(\.label) } == [["Name"], ["Password"]])
    if let shown = host.current { try host.dismiss(shown) }
    if let rename = host.current { try host.dismiss(rename) }
    let signIn = try #require(host.current)
    try host.tap(signIn.buttons[0], of: signIn, texts: ["hunter2"])
    #expect(await asking.value.tappedButton?.text(of: "Password") == "hunter2")
  }

  @Test func theNearestHostWins() {
    let app = EnvironmentNode("app")
    let appHost = app.installAlertHost()
    let sheet = app.child("sheet")
    let sheetHost = sheet.installAlertHost()
    sheet.child("form").withCurrent { DeepService() }.warn()
    app.child("list").withCurrent { DeepService() }.warn()
    #expect(sheetHost.current?.title == "Careful")
    #expect(appHost.current?.title == "Careful")
    #expect(sheetHost.current?.id != appHost.current?.id)
  }

  @Test func theNodeKeepsItsHostAliveUntilTheOverrideGoes() {
    let app = EnvironmentNode("app")
    weak var weakHost: AlertHost?
    do { weakHost = app.installAlertHost() }
    #expect(weakHost != nil)
    app.removeOverride(\.alertHost)
    #expect(weakHost == nil)
    #expect(app[\.alertHost] == nil)
  }

  @Test func aProviderAndAnAlertDataShowTheSame() {
    let host = AlertHost()
    let action = ShowAlertAction(host: host)
    action(NoteAlert.deleteFailed(name: "Groceries"))
    #expect(host.current?.title == "Could not delete Groceries")
  }

  @Test func askReturnsTheTappedButton() async throws {
    let host = AlertHost(presenter: TapFirstButtonPresenter())
    let action = ShowAlertAction(host: host)
    let outcome = await action.ask(
      title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
    #expect(outcome.tappedButton?.title == "Delete")
    #expect("\(outcome)" == "tapped Delete")
  }

  @Test func aCustomActionReceivesAlertsAndResolvesThem() async {
    let collected = Outcomes()
    let action = ShowAlertAction { alert, resolve in
      resolve(.answered(AlertTap(alert.buttons[0], at: 0)))
      resolve(.dismissed)  // ignored: the first resolution wins
    }
    let outcome = await action.ask(title: "Mocked")
    collected.append(outcome)
    #expect(collected.all == [outcome])
    #expect(outcome.tappedButton?.title == "OK")
  }

  @Test func aCustomActionThatNeverAnswersResolvesAsUnanswered() async {
    let action = ShowAlertAction { _, _ in }
    #expect(await action.ask(title: "Ignored") == .dropped(.unanswered))
  }

  @Test func theCompletionFormReportsTheOutcome() async {
    let host = AlertHost(presenter: TapFirstButtonPresenter())
    let outcome = await withCheckedContinuation { continuation in
      ShowAlertAction(host: host)(AlertData(title: "Done")) { continuation.resume(returning: $0) }
    }
    #expect(outcome.tappedButton?.title == "OK")
  }
}
