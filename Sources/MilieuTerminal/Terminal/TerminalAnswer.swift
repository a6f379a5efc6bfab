/// How an alert presented by ``Terminal`` ended.
///
/// ```swift
/// switch try presenter.present(alert) {
/// case .button(let index): print("chose \(alert.buttons[index].title)")
/// case .dismissed: print("closed without a choice")
/// case .interrupted: print("Ctrl-C or a signal")
/// case .cancelled: print("the presenting task was cancelled")
/// }
/// ```
public enum TerminalAnswer: Hashable, Sendable {
  /// The user chose the button at this index in ``TerminalAlert/buttons``. Esc and end of input
  /// choose the cancel button when there is one.
  case button(Int)
  /// The alert has no cancel button and the user backed out (Esc, end of input), or it has no
  /// buttons and the user pressed Enter.
  case dismissed
  /// The user pressed Ctrl-C, or SIGINT, SIGTERM or SIGHUP arrived and the program survived it.
  case interrupted
  /// The task awaiting ``Terminal/present(_:isolation:)`` was cancelled.
  case cancelled
}
