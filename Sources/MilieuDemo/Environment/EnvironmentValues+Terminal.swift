import Milieu
import MilieuTerminal

extension EnvironmentValues {
  static let terminal = Entry(Terminal())

  /// How the app draws and reads alerts: standard input and output, colour unless `NO_COLOR`
  /// is set. A subtree that installs its own host, like the share sheet, presents with it too.
  var terminal: Terminal {
    get { self[Self.terminal] }
    set { self[Self.terminal] = newValue }
  }
}
