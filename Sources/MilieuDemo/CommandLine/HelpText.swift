/// The text `--help` prints.
enum HelpText {
  static var text: String {
    let scenarios = Scenario.allCases.map { scenario in
      "  " + scenario.rawValue.padding(toLength: 9) + scenario.summary
    }
    return """
      milieu-demo: a small notes app whose nested services ask you things in the terminal.

      The app is a service graph, App → Library → Folder → Note, each service reading what it
      needs (showAlert, showToast, the notes store, retry counts) with @Environment from its
      own node of a Milieu environment tree. The root node installs a terminal alert host and
      a toast host; a share sheet installs a host of its own.

      USAGE
        milieu-demo                    show what the environment does for the app's
                                       services, then run scenarios chosen from a menu,
                                       which comes back after each one until Quit
        milieu-demo --scenario NAME    run one scenario (also --scenario=NAME)
        milieu-demo --list             print the scenario names, one per line
        milieu-demo --tree             print the environment tree with provenance
        milieu-demo --help             print this help

      SCENARIOS
      \(scenarios.joined(separator: "\n"))

      ANSWERING ALERTS
        In a terminal, each alert is a box: ←/→, Tab/Shift-Tab or ↑/↓ move the focus, Enter
        or a button's digit chooses, Esc or Ctrl-D chooses the cancel button (or dismisses an
        alert without one), Ctrl-C quits. The terminal is always restored. In a text field,
        type; Tab moves on, Enter in the last field chooses the first default button.
        From a pipe or a file, each alert is printed as numbered text and one line is read
        per text field (an empty line keeps its text), then one per alert: a button's number
        or title. End of input counts as cancel.

      Every resolved alert is reported on one line, "<title>: <outcome>":
        Delete 3 notes?: tapped Delete

      ENVIRONMENT
        NO_COLOR    set to anything but the empty string to turn colour off

      EXIT STATUS
        0  the command ran to the end
        1  a problem was reported on standard error, such as input that cannot be read
        2  a usage error

      EXAMPLE
        printf 'Delete\\n' | milieu-demo --scenario delete
      """
  }
}

extension String {
  /// The string padded with spaces to at least `length` characters.
  fileprivate func padding(toLength length: Int) -> String {
    self + String(repeating: " ", count: max(1, length - count))
  }
}
