import Milieu
import MilieuAlerts
import MilieuTesting
import Testing

/// A recorder knows the node it is installed on, a toast host goes beside it there, and the
/// answering forms compile the same in asynchronous code.
@Suite struct RecorderInstallationTests {
  private struct Exporter {
    @Environment(\.showToast) var showToast
    func export() { showToast("Exported 12 notes", style: .success) }
  }

  @Test func aToastHostGoesBesideTheRecorderOnItsNode() throws {
    try withAlertRecorder { alerts in
      let node = try #require(alerts.node)
      #expect(node === EnvironmentNode.current)
      let toasts = node.installToastHost(clock: TestClock())
      Exporter().export()
      #expect(toasts.current?.message == "Exported 12 notes")
    }
  }

  @Test func aRecorderInstalledOnANodeKnowsItsNode() {
    let app = EnvironmentNode("app")
    let alerts = app.installAlertRecorder(exhaustive: false)
    #expect(alerts.node === app)
    #expect(AlertRecorder(exhaustive: false).node == nil)
  }

  @Test func theHostAboveANodeIsItsAlertHost() {
    let app = EnvironmentNode("app")
    let host = app.installAlertHost()
    let toasts = app.installToastHost()
    let request = app.child("request")
    #expect(request[\.alertHost] === host)
    #expect(request[\.toastHost] === toasts)
    #expect(EnvironmentNode("alone")[\.alertHost] == nil)
  }

  /// In asynchronous code, the starting forms compile as documented, and the waiting forms
  /// have names of their own.
  @Test func answeringCompilesTheSameInAsynchronousCode() async throws {
    let host = AlertHost()
    host.show(AlertData(title: "One"))
    host.show(AlertData(title: "Two"))
    host.show(AlertData(title: "Three"))
    host.show(AlertData(title: "Four"))
    let one = try #require(host.current)
    try host.tap(one.buttons[0], of: one)
    let two = try #require(host.current)
    try host.dismiss(two)
    let three = try #require(host.current)
    try await host.tapAndWait(three.buttons[0], of: three)
    let four = try #require(host.current)
    try await host.dismissAndWait(four)
    #expect(host.current == nil)
  }
}

/// A failure says where it happened once: the test runner shows its location already.
@Suite struct FailureMessageTests {
  @Test func failuresDoNotRepeatTheirLocation() {
    withKnownIssue {
      withTestEnvironment(.set(\.showAlert, .unimplemented)) {
        EnvironmentNode.current[\.showAlert](title: "Unexpected")
      }
      withAlertRecorder { _ in
        EnvironmentNode.current[\.showAlert](title: "Unchecked")
      }
    } matching: { issue in
      guard let location = issue.sourceLocation else { return false }
      let text = issue.comments.map(\.rawValue).joined()
      return !text.contains("\(location.fileID):\(location.line)")
    }
  }
}
