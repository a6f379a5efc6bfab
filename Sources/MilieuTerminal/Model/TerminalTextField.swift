/// One text field of a ``TerminalAlert``: a label, the text it starts with, and whether it
/// hides what is typed.
///
/// Made from an `AlertTextField` by ``TerminalAlert/init(_:)``; what is typed reaches the host
/// through ``TerminalAlertPresenter``.
struct TerminalTextField: Sendable, Hashable {
  /// What the field asks for, shown in front of it.
  var label: String
  /// The text the field starts with.
  var text: String
  /// Whether the field shows nothing of what is typed.
  var isSecure: Bool
}
