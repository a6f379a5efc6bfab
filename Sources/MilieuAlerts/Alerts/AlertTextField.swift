import Milieu

/// A text field of an alert: a label, the text it starts with, and whether it hides what is
/// typed.
///
/// What a person enters comes back with the tapped button: ``AlertTap/textFields`` holds the
/// alert's fields, each with the ``text`` entered.
///
/// ```swift
/// let outcome = await showAlert.ask(
///   AlertData(
///     title: "Sign in to Sync",
///     textFields: [AlertTextField("Email"), .secure("Password")],
///     buttons: [.default("Sign In"), .cancel()]))
/// if let tap = outcome.tappedButton, tap.title == "Sign In" {
///   try await sync.signIn(email: tap.text(of: "Email") ?? "", password: tap.text(of: "Password") ?? "")
/// }
/// ```
///
/// A field's text holds no control characters: a line break or a tab becomes a space, and any
/// other control character (C0, DEL, C1) is left out. Text that holds some — the initial text
/// when the alert is made, or what a presenter or a test enters — is repaired that way and
/// reported with ``AlertDiagnostic/Rule/plainFieldText``.
///
/// A secure field's text is never printed: its description, its debug description and what
/// `dump` and debuggers show of it say `(hidden)` in its place, and so does everything that
/// prints a field — a tap, an outcome, a test's failure message.
///
/// ```swift
/// let password = AlertTextField.secure("Password", text: "hunter2")
/// print(password)  // Password: (hidden)
/// ```
public struct AlertTextField: Sendable, Identifiable, Hashable {
  /// The field's identity, unique in the process; the same in an alert and in a tap of it.
  public let id: PresentationID
  /// What the field asks for: the placeholder SwiftUI shows in the empty field, the name a
  /// terminal shows in front of it, and the name tests type into it by.
  public let label: String
  /// The text: in an alert, what the field starts with; in an ``AlertTap``, what was entered.
  public var text: String
  /// Whether the field hides what is typed, as a password field does.
  public let isSecure: Bool

  /// Creates a text field.
  ///
  /// ```swift
  /// let name = AlertTextField("Name", text: "Untitled")
  /// ```
  ///
  /// - Parameters:
  ///   - label: What the field asks for; also its placeholder.
  ///   - text: The text it starts with.
  ///   - isSecure: Whether it hides what is typed.
  public init(_ label: String, text: String = "", isSecure: Bool = false) {
    self.init(id: PresentationID(), label: label, text: text, isSecure: isSecure)
  }

  /// A field that hides what is typed: `.secure("Password")`.
  ///
  /// - Parameters:
  ///   - label: What the field asks for; also its placeholder.
  ///   - text: The text it starts with.
  /// - Returns: The field.
  public static func secure(_ label: String, text: String = "") -> AlertTextField {
    AlertTextField(label, text: text, isSecure: true)
  }

  private init(id: PresentationID, label: String, text: String, isSecure: Bool) {
    self.id = id
    self.label = label
    self.text = text
    self.isSecure = isSecure
  }

  /// A copy with the same identity and another label or text.
  func with(label: String? = nil, text: String? = nil) -> AlertTextField {
    AlertTextField(id: id, label: label ?? self.label, text: text ?? self.text, isSecure: isSecure)
  }
}

extension AlertTextField: CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The label and the quoted text; a secure field's text never.
  ///
  /// ```swift
  /// AlertTextField("Name", text: "Groceries").description  // Name: "Groceries"
  /// AlertTextField.secure("Password", text: "hunter2").description  // Password: (hidden)
  /// ```
  public var description: String { "\(label): \(quotedText)" }

  /// The field as it is made; a secure field's text never.
  ///
  /// ```swift
  /// String(reflecting: AlertTextField.secure("Password", text: "hunter2"))
  /// // AlertTextField("Password", text: (hidden), isSecure: true)
  /// ```
  public var debugDescription: String {
    "AlertTextField(\(DiagnosticText.quoted(label)), text: \(quotedText)"
      + (isSecure ? ", isSecure: true)" : ")")
  }

  /// The field's parts, for `dump` and debuggers; a secure field's text is `(hidden)`.
  ///
  /// ```swift
  /// dump(AlertTextField.secure("Password", text: "hunter2"))
  /// // ▿ AlertTextField("Password", text: (hidden), isSecure: true)
  /// //   ▿ id: #1 …
  /// //   - label: "Password"
  /// //   - text: (hidden)
  /// //   - isSecure: true
  /// ```
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "id": id, "label": label, "text": isSecure ? HiddenText() : text as Any,
        "isSecure": isSecure,
      ],
      displayStyle: .struct)
  }

  /// The text as messages quote it: neutralised between quotes, or `(hidden)` for a secure
  /// field.
  package var quotedText: String {
    isSecure ? HiddenText().description : DiagnosticText.quoted(text)
  }

  /// What stands for a secure field's text wherever the field is shown.
  private struct HiddenText: CustomStringConvertible {
    var description: String { "(hidden)" }
  }
}

extension AlertTextField {
  /// Text as a field may hold it: each line break (CR LF counting as one) and tab becomes a
  /// space, and every other control character (`DiagnosticText.isControlCharacter(_:)`) is left
  /// out.
  ///
  /// - Returns: The text, and how many control characters were replaced or left out; the text
  ///   as it is when there were none.
  package static func plainText(_ text: String) -> (text: String, controlCharacters: Int) {
    let isControlCharacter = DiagnosticText.isControlCharacter
    guard text.unicodeScalars.contains(where: isControlCharacter) else { return (text, 0) }
    var result = String.UnicodeScalarView()
    var count = 0
    var previousWasCarriageReturn = false
    for scalar in text.unicodeScalars {
      defer { previousWasCarriageReturn = scalar == "\r" }
      guard isControlCharacter(scalar) else {
        result.append(scalar)
        continue
      }
      count += 1
      switch scalar.value {
      case 0x0A where previousWasCarriageReturn: continue
      case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: result.append(" ")
      default: continue
      }
    }
    return (String(result), count)
  }
}
