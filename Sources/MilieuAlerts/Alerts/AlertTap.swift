/// A tap on one of an alert's buttons: the answer to an alert.
///
/// An ``AlertOutcome`` carries it, `.answered(tap)`, when a button was tapped; a presenter
/// answers a host with one, and ``PresentationHost/tap(_:of:)`` makes one from a button.
///
/// ```swift
/// if case .answered(let button) = await showAlert.ask(title: "Retry?", buttons: [.default("Retry"), .cancel()]),
///   button.title == "Retry"
/// {
///   try await sync()
/// }
/// ```
public struct AlertTap: Sendable, Equatable, CustomStringConvertible {
  /// The tapped button's identity.
  public let buttonID: PresentationID
  /// The tapped button's position among the alert's buttons, from 0.
  public let index: Int
  /// The tapped button's title.
  public let title: String
  /// The tapped button's role.
  public let role: AlertButton.Role

  /// Creates the tap of one of an alert's buttons.
  ///
  /// - Parameters:
  ///   - button: The button.
  ///   - index: Its position among the alert's buttons.
  public init(_ button: AlertButton, at index: Int) {
    buttonID = button.id
    self.index = index
    title = button.title
    role = button.role
  }

  /// `tapped Delete`.
  public var description: String { "tapped \(title)" }
}

/// How an alert was resolved: a button tapped, dismissed, or dropped with a reason.
///
/// ```swift
/// let outcome = await showAlert.ask(title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
/// print("Delete 3 notes?: \(outcome)")  // Delete 3 notes?: tapped Delete
/// ```
public typealias AlertOutcome = PresentationOutcome<AlertTap>

extension PresentationOutcome where Answer == AlertTap {
  /// The tapped button, if a button was tapped.
  public var tappedButton: AlertTap? {
    if case .answered(let tap) = self { return tap }
    return nil
  }
}
