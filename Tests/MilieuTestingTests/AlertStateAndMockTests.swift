@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTesting
import Testing

/// A reducer keeps its alert in state as an `AlertState`, and a test compares that state by
/// value, then shows the alert and sends the tapped button's action.
@Suite struct AlertStateReducerTests {
  enum AppAction: Equatable, Sendable { case cancelTapped, confirmTapped, deleteTapped }

  struct AppState: Equatable {
    var alert: AlertState<AppAction>?
    var deleted = false
  }

  static func reduce(_ state: inout AppState, _ action: AppAction) {
    switch action {
    case .cancelTapped:
      state.alert = nil
    case .confirmTapped:
      state.alert = nil
      state.deleted = true
    case .deleteTapped:
      state.alert = AlertState(
        title: "Delete",
        message: "Are you sure you want to delete this? It cannot be undone.",
        primaryButton: .default("Confirm", send: .confirmTapped),
        secondaryButton: .cancel(send: .cancelTapped))
    }
  }

  @Test func theAlertInStateComparesByValue() async throws {
    var state = AppState()
    Self.reduce(&state, .deleteTapped)
    #expect(
      state.alert
        == AlertState(
          title: "Delete",
          message: "Are you sure you want to delete this? It cannot be undone.",
          primaryButton: .default("Confirm", send: .confirmTapped),
          secondaryButton: .cancel(send: .cancelTapped)))

    // Shown through Milieu, tapping Confirm feeds the action back into the reducer.
    let sent = Lock<[AppAction]>([])
    try await withAlertRecorder { alerts in
      let alert = try #require(state.alert)
      EnvironmentNode.current[\.showAlert](alert) { action in sent.withLock { $0.append(action) } }
      #expect(alerts.title == "Delete")
      try await alerts.tap("Confirm")
    }
    for action in sent.withLock({ $0 }) { Self.reduce(&state, action) }
    #expect(state == AppState(alert: nil, deleted: true))
  }
}

/// A mocked `ShowAlertAction` in the environment sees the alert the code shows, without any UI.
@Suite struct MockedShowAlertActionTests {
  @Test func aMockedActionSeesTheAlert() async {
    let shown = Lock<[String]>([])
    let mock = ShowAlertAction { alert, resolve in
      shown.withLock { $0.append(alert.plainText) }
      resolve(.answered(AlertTap(alert.buttons[0], at: 0)))
    }
    let signedOut = await withTestEnvironment(.set(\.showAlert, mock)) {
      await Session().confirmSignOut()
    }
    #expect(signedOut)
    #expect(
      shown.withLock { $0 } == [
        """
        title: Sign out?
        buttons:
          1. Sign Out (destructive)
          2. Cancel (cancel)
        """
      ])
  }
}
