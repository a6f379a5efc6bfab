import Milieu
import MilieuAlerts
import MilieuTerminal

/// The menu shown when the demo runs without arguments, again after each scenario: an alert with
/// one button per scenario, and Quit.
struct ScenarioMenu {
  @Environment(\.showAlert) var showAlert
  @Environment(\.console) var console

  /// Asks which scenario to run.
  ///
  /// - Returns: The scenario, or `nil` when the user quits (Esc, Quit, end of input).
  func choose() async -> Scenario? {
    let alert = AlertData(
      title: "Milieu demo: choose a scenario",
      message:
        "A notes app whose nested services ask you things. Each scenario starts afresh and "
        + "comes back here; Quit ends the demo. Run milieu-demo --help to read what each "
        + "scenario shows.",
      buttons: Scenario.allCases.map { AlertButton.default($0.rawValue) } + [.cancel("Quit")])
    // Reported like every other alert, as --help promises.
    let outcome = await showAlert.askReporting(alert, to: console)
    return outcome.tappedButton.flatMap { Scenario(rawValue: $0.title) }
  }
}
