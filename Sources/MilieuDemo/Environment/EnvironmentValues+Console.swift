import Milieu
import MilieuTerminal

extension EnvironmentValues {
  static let console = Entry(TerminalConsole())

  /// Where services write what they did and how their alerts were answered: standard output,
  /// above any alert on screen.
  var console: TerminalConsole {
    get { self[Self.console] }
    set { self[Self.console] = newValue }
  }
}
