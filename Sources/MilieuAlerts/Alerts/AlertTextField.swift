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
