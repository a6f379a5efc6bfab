/// The button that answered an alert.
///
/// An ``AlertOutcome`` carries it: `.chosen(choice)` when a button was tapped.
///
/// ```swift
/// if case .chosen(let button) = await showAlert.ask(title: "Retry?", buttons: [.default("Retry"), .cancel()]),
///   button.title == "Retry"
/// {
///   try await sync()
/// }
/// ```
public struct AlertChoice: Sendable, Equatable, CustomStringConvertible {
  /// The tapped button's identity.
  public let buttonID: PresentationID
  /// The tapped button's position among the alert's buttons, from 0.
  public let index: Int
  /// The tapped button's title.
  public let title: String
  /// The tapped button's role.
  public let role: AlertButton.Role

  /// Creates the choice of one of an alert's buttons.
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
public typealias AlertOutcome = PresentationOutcome<AlertChoice>

extension PresentationOutcome where Choice == AlertChoice {
  /// The tapped button, if a button was tapped.
  public var tappedButton: AlertChoice? {
    if case .chosen(let choice) = self { return choice }
    return nil
  }
}
