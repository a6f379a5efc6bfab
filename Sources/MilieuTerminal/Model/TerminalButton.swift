/// One button of a ``TerminalAlert``: a title and the role that decides how it is drawn.
///
/// The role changes the button's place and look, never its meaning: a ``Role/destructive`` button
/// is drawn in red when colour is on, and a ``Role/cancel`` button is set apart at the end of the
/// button row and is chosen when the user presses Esc.
///
/// ```swift
/// let delete = TerminalButton("Delete", role: .destructive)
/// let cancel = TerminalButton("Cancel", role: .cancel)
/// ```
public struct TerminalButton: Sendable, Hashable {
  /// How a button is drawn and whether Esc chooses it.
  public enum Role: Sendable, Hashable, CaseIterable {
    /// An ordinary choice, drawn without emphasis.
    case `default`
    /// The choice that backs out; drawn last, set apart, and chosen by Esc or end of input.
    case cancel
    /// A choice that destroys something; drawn in red when colour is on.
    case destructive
  }

  /// The title as the caller gave it.
  ///
  /// It is neutralised for display (control characters and escape sequences made visible), and matched case-insensitively when the
  /// user types it in plain mode.
  public var title: String

  /// The button's role.
  ///
  /// It decides the button's colour, whether it is set apart at the end, and whether Esc chooses it.
  public var role: Role

  /// Creates a button.
  ///
  /// - Parameters:
  ///   - title: The text on the button. Control characters are shown neutralised.
  ///   - role: The button's role; ``Role/default`` unless given.
  public init(_ title: String, role: Role = .default) {
    self.title = title
    self.role = role
  }
}
