import Milieu

/// A tap on one of an alert's buttons, with what was entered in its text fields: the answer to
/// an alert.
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
  /// The alert's text fields, in order, each with the text entered; empty for an alert without
  /// text fields.
  public var textFields: [AlertTextField] { entered ?? [] }

  /// The text fields, `nil` rather than empty for an alert without any: a tap is copied at
  /// every step of its way through a host, and `nil` copies for free. Never empty, so that the
  /// equality Swift derives, field by field, compares the fields.
  private let entered: [AlertTextField]?

  /// Creates the tap of one of an alert's buttons, without text fields.
  ///
  /// For an alert with text fields, make the tap with ``AlertData/tapOfButton(at:texts:)``,
  /// which carries what was entered; a tap made here carries nothing, and its outcome has no
  /// text.
  ///
  /// - Parameters:
  ///   - button: The button.
  ///   - index: Its position among the alert's buttons.
  public init(_ button: AlertButton, at index: Int) {
    buttonID = button.id
    self.index = index
    title = button.title
    role = button.role
    entered = nil
  }

  /// The tap of a button of an alert with text fields, carrying them with their texts.
  init(_ button: AlertButton, at index: Int, textFields: [AlertTextField]) {
    buttonID = button.id
    self.index = index
    title = button.title
    role = button.role
    entered = textFields.isEmpty ? nil : textFields
  }

  /// The text entered in the field with a label, if the alert has one.
  ///
  /// ```swift
  /// let name = outcome.tappedButton?.text(of: "Name") ?? "Untitled"
  /// ```
  ///
  /// - Parameter label: The field's label, compared exactly.
  /// - Returns: The text, or `nil` when no field has that label.
  public func text(of label: String) -> String? {
    textFields.first { $0.label == label }?.text
  }

  /// `tapped Delete`; with text fields, `tapped Rename, Name: "Groceries"`, a secure field's
  /// text never shown: `tapped Sign In, Email: "ada@example.com", Password: (hidden)`.
  public var description: String {
    guard !textFields.isEmpty else { return "tapped \(title)" }
    return "tapped \(title), " + textFields.map(\.description).joined(separator: ", ")
  }
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
