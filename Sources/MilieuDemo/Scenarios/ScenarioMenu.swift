import Milieu
import MilieuAlerts

/// The menu shown when the demo runs without arguments: an alert with one button per scenario.
struct ScenarioMenu {
  @Environment(\.showAlert) var showAlert

  /// Asks which scenario to run.
  ///
  /// - Returns: The scenario, or `nil` when the user quits (Esc, Quit, end of input).
  func choose() async -> Scenario? {
    let alert = AlertData(
      title: "Milieu demo: choose a scenario",
      message:
        "A notes app whose nested services ask you things. "
        + "Run milieu-demo --help to read what each scenario shows.",
      buttons: Scenario.allCases.map { AlertButton.default($0.rawValue) } + [.cancel("Quit")])
    let outcome = await showAlert.ask(alert)
    return outcome.tappedButton.flatMap { Scenario(rawValue: $0.title) }
  }
}
