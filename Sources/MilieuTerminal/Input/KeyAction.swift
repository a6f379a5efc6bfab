/// What a key press does to an alert on screen, as decided by ``AlertFocus``.
///
/// Button indices are indices into ``TerminalAlert/buttons``.
enum KeyAction: Hashable, Sendable {
  /// The key does nothing here.
  case none
  /// The focus moved, a text field changed, or a notice came or went; redraw.
  case redraw
  /// The user chose the button at this index — by Enter, by its digit, or, for the cancel
  /// button, by Esc or end of input.
  case tap(Int)
  /// The user backed out of an alert that has no cancel button.
  case dismiss
  /// The user pressed Ctrl-C.
  case interrupt
}
