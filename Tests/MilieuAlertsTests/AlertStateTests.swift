@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import Testing

enum DeleteAction: Equatable, Sendable {
  case confirmTapped, cancelTapped
}

enum ParentAction: Equatable, Sendable {
  case child(DeleteAction)
}

@Suite struct AlertStateTests {
  let deleteAlert = AlertState<DeleteAction>(
    title: "Delete",
    message: "Are you sure you want to delete this? It cannot be undone.",
    primaryButton: .default("Confirm", send: .confirmTapped),
    secondaryButton: .cancel(send: .cancelTapped))

  @Test func equalityIgnoresTheIdentity() {
    let again = AlertState<DeleteAction>(
      title: "Delete",
      message: "Are you sure you want to delete this? It cannot be undone.",
      primaryButton: .default("Confirm", send: .confirmTapped),
      secondaryButton: .cancel(send: .cancelTapped))
    #expect(deleteAlert.id != again.id)
    #expect(deleteAlert == again)
    var different = again
    different.buttons[1].action = nil
    #expect(deleteAlert != different)
  }

  @Test func mapTransformsActionsAndKeepsTheIdentity() {
    let parent = deleteAlert.map(ParentAction.child)
    #expect(parent.id == deleteAlert.id)
    #expect(parent.buttons.map(\.action) == [.child(.confirmTapped), .child(.cancelTapped)])
    #expect(parent.title == deleteAlert.title)
  }

  @Test func showingSendsTheTappedButtonsAction() async throws {
    let sent = Lock<[DeleteAction]>([])
    let host = AlertHost()
    ShowAlertAction(host: host)(deleteAlert) { action in sent.withLock { $0.append(action) } }
    let shown = try #require(host.current)
    #expect(shown.buttons.map(\.title) == ["Confirm", "Cancel"])
    try await host.tapAndWait(shown.buttons[0], of: shown)
    #expect(sent.withLock { $0 } == [.confirmTapped])
  }

  @Test func dismissingSendsTheCancelAction() async throws {
    let sent = Lock<[DeleteAction]>([])
    let host = AlertHost()
    ShowAlertAction(host: host)(deleteAlert) { action in sent.withLock { $0.append(action) } }
    try await host.dismissAndWait(try #require(host.current))
    #expect(sent.withLock { $0 } == [.cancelTapped])
  }

  @Test func aDismissButtonAloneIsAllowed() {
    let alert = AlertState<DeleteAction>(title: "Done", dismissButton: nil)
    #expect(alert.buttons.isEmpty)
  }
}
