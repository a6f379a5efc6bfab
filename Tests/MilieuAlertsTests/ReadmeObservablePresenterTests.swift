import Milieu
import MilieuAlerts
import Observation
import Testing

/// The README's observable presenter example, compiled and run; the README block must be the
/// code between the markers. The block is the whole test, `@MainActor` included: the presenter
/// is read and answered on the main actor, and its body pasted into a test that is not on the
/// main actor does not compile.
@Suite(.timeLimit(.minutes(1))) struct ReadmeObservablePresenterTests {
  // README: begin
  @MainActor @Test func theViewLayerObservesTheAlertAndAnswersIt() async throws {
    let alerts = ObservableAlertPresenter()  // what the view layer observes
    let app = EnvironmentNode("app")
    app.installAlertHost(presenter: alerts)

    // A service anywhere below `app` asks for a name:
    let renaming = Task {
      await app[\.showAlert].ask(
        title: "Rename note", textFields: [AlertTextField("Name", text: "Roadmap")],
        buttons: [.default("Rename"), .cancel()])
    }

    // The view layer, on the main actor, is told when `alerts.alert` changes:
    await withCheckedContinuation { shown in
      withObservationTracking {
        _ = alerts.alert
      } onChange: {
        shown.resume()
      }
    }
    let alert = try #require(alerts.alert)
    alerts.textFields[0].text = "Groceries"  // a TextField bound to it
    try alerts.tap(alert.buttons[0], of: alert)  // a Button's action
    #expect(await renaming.value.tappedButton?.text(of: "Name") == "Groceries")
  }
  // README: end
}
