import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing

/// An action read through `@Environment` belongs to the node it was read from: its issues go to
/// that node's reporter and name that node, whichever node is current when it is called.
@Suite struct ActionBindingTests {
  private struct Service {
    @Environment(\.showAlert) var showAlert
    @Environment(\.showToast) var showToast
  }

  /// Two siblings: `bare`, with no host, and `hosted`, with one; each collects its own issues.
  private struct Siblings {
    let bareIssues = IssueCollector()
    let hostedIssues = IssueCollector()
    let bare: EnvironmentNode
    let hosted: EnvironmentNode

    init() {
      let app = EnvironmentNode("app")
      bare = app.child("bare") { [bareIssues] in
        $0.issueReporter = IssueReporter { bareIssues.append($0) }
      }
      hosted = app.child("hosted") { [hostedIssues] in
        $0.issueReporter = IssueReporter { hostedIssues.append($0) }
      }
      hosted.installAlertHost()
      hosted.installToastHost()
    }
  }

  @Test func askWithNoHostReportsToTheNodeTheActionWasReadFrom() async {
    let nodes = Siblings()
    let service = nodes.bare.withCurrent { Service() }
    let outcome = await nodes.hosted.withCurrent {
      await service.showAlert.ask(title: "Anyone there?")
    }
    #expect(outcome == .dropped(.noHost))
    #expect(nodes.hostedIssues.all.isEmpty)
    let issues = nodes.bareIssues.all
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("from node \"bare\" to the root") == true)
  }

  @Test func badInputReportsToTheNodeTheActionWasReadFrom() {
    let nodes = Siblings()
    let service = nodes.bare.withCurrent { Service() }
    nodes.hosted.withCurrent {
      service.showAlert(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
    }
    #expect(nodes.hostedIssues.all.isEmpty)
    #expect(nodes.bareIssues.all.map(\.message).contains { $0.contains("one cancel button") })
  }

  @Test func aToastActionReportsToTheNodeItWasReadFrom() async {
    let nodes = Siblings()
    let service = nodes.bare.withCurrent { Service() }
    let outcome = await nodes.hosted.withCurrent {
      await service.showToast.ask(Toast("Saved"))
    }
    #expect(outcome == .dropped(.noHost))
    #expect(nodes.hostedIssues.all.isEmpty)
    #expect(nodes.bareIssues.all.first?.message.contains("node \"bare\"") == true)
  }

  /// An action read with a node's subscript does not know that node, so its report of a
  /// missing host names no node as the one it was read from: not the node it is called in, nor
  /// the root.
  @Test func anActionReadWithASubscriptNamesNoNodeItWasNotReadFrom() async {
    let lonely = EnvironmentNode("lonely")
    let (outcome, issues) = await collectingIssuesAsync {
      await lonely[\.showAlert].ask(title: "Anyone there?")
    }
    #expect(outcome == .dropped(.noHost))
    let message = issues.first?.message ?? ""
    #expect(issues.count == 1)
    #expect(!message.contains("on the path from node"), "\(message)")
    #expect(
      message.hasPrefix(
        "The alert \"Anyone there?\" was dropped: no host is installed above the node this "
          + "action was read from (it was called in node \"collecting issues\"; read with a "
          + "node's subscript, an action does not know that node: read it with "
          + "`@Environment(\\.showAlert)`, or bind it with `bound(to: node)`, to have it named "
          + "here)."), "\(message)")
    // Bound to the node, it names it, and reports to it.
    let lonelyIssues = IssueCollector()
    lonely.update { $0.issueReporter = IssueReporter { lonelyIssues.append($0) } }
    _ = await lonely[\.showAlert].bound(to: lonely).ask(title: "Anyone there?")
    #expect(
      lonelyIssues.all.first?.message.contains("on the path from node \"lonely\" to the root.")
        == true)
  }

  @Test func anActionReadFromTheNodeDirectlyReportsWhereItIsCalled() {
    let nodes = Siblings()
    let showAlert = nodes.bare[\.showAlert]
    nodes.bare.withCurrent { showAlert(title: "Hello") }
    #expect(nodes.bareIssues.all.count == 1)
  }

  @Test func theBoundActionStillReachesTheHostOfItsNode() async throws {
    let nodes = Siblings()
    let service = nodes.hosted.withCurrent { Service() }
    let answer = Task { await nodes.bare.withCurrent { await service.showAlert.ask(title: "Go?") } }
    let host = try #require(nodes.hosted[\.alertHost])
    await eventually("the alert is shown") { host.current != nil }
    let alert = try #require(host.current)
    try await host.tapAndWait(alert.buttons[0], of: alert)
    #expect(await answer.value.tappedButton?.title == "OK")
    #expect(nodes.bareIssues.all.isEmpty && nodes.hostedIssues.all.isEmpty)
  }

  @Test func aPresenterReportsToTheNodeThatShowedTheItemNotTheOneThatAnsweredTheLast() throws {
    let nodes = Siblings()
    let host = AlertHost(presenter: ReportingPresenter())
    let first = AlertData(title: "First")
    nodes.bare.withCurrent { host.show(first) }
    let second = AlertData(title: "Second")
    nodes.hosted.withCurrent { host.show(second) }

    // Answered from the bare node, which makes the second alert current: the presenter runs
    // with the bare node current.
    try nodes.bare.withCurrent { try host.dismiss(first) }

    #expect(nodes.bareIssues.all.map(\.message) == ["presented First"])
    #expect(nodes.hostedIssues.all.map(\.message) == ["presented Second"])
  }
  @Test func aPresenterReportsToTheNodeOfTheBoundActionThatShowedTheItem() throws {
    let nodes = Siblings()
    let host = nodes.hosted.installAlertHost(presenter: ReportingPresenter())
    let fromHosted = nodes.hosted.withCurrent { Service() }
    let fromBare = nodes.bare.child("inner") {
      $0.alertHost = host
      $0.showAlert = ShowAlertAction(host: host)
    }
    .withCurrent { Service() }

    // Called with the other node current: the action's own node is where the item came from.
    nodes.bare.withCurrent { fromHosted.showAlert(AlertData(title: "From hosted")) }
    nodes.hosted.withCurrent { fromBare.showAlert(AlertData(title: "From bare")) }

    #expect(nodes.hostedIssues.all.map(\.message) == ["presented From hosted"])
    #expect(nodes.bareIssues.all.map(\.message) == [])
    let waiting = try #require(host.pending.first)
    #expect(waiting.title == "From bare")
    host.issueReporter(for: waiting).report(EnvironmentIssue("asked later", at: waiting.callSite))
    #expect(nodes.bareIssues.all.map(\.message) == ["asked later"])
  }
}

/// Reports each item it is given through the host's reporter for that item.
private struct ReportingPresenter: Presenter {
  func present(_ alert: AlertData, in host: AlertHost) {
    host.issueReporter(for: alert).report(
      EnvironmentIssue("presented \(alert.title)", at: alert.callSite))
  }
  func withdraw(_ alert: AlertData, from host: AlertHost) {}
}
