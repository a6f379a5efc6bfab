import Milieu
import MilieuAlerts

extension AlertData {
  /// The alert as plain text — title, message, text fields, buttons with their roles, and its
  /// priority unless it is normal — stable enough for golden files: no identities, no colour,
  /// line breaks in text shown as `\n` and every other control character escaped (`\u{2028}`).
  ///
  /// ```swift
  /// #expect(alert.plainText == """
  ///   title: Delete 3 notes?
  ///   message: This cannot be undone.
  ///   buttons:
  ///     1. Delete (destructive)
  ///     2. Cancel (cancel)
  ///   """)
  /// ```
  ///
  /// Text fields come before the buttons, with the text each starts with, except a secure
  /// field's, which is never shown:
  ///
  /// ```text
  /// title: Sign in
  /// text fields:
  ///   1. Email: "ada@example.com"
  ///   2. Password (secure): (hidden)
  /// buttons:
  ///   1. Sign In (default)
  ///   2. Cancel (cancel)
  /// priority: high
  /// ```
  public var plainText: String {
    var lines = ["title: \(Self.escaped(title))"]
    if let message { lines.append("message: \(Self.escaped(message))") }
    if !textFields.isEmpty {
      lines.append("text fields:")
      for (index, field) in textFields.enumerated() {
        let text = field.isSecure ? "(hidden)" : "\"\(Self.escaped(field.text))\""
        let secure = field.isSecure ? " (secure)" : ""
        lines.append("  \(index + 1). \(Self.escaped(field.label))\(secure): \(text)")
      }
    }
    lines.append("buttons:")
    for (index, button) in buttons.enumerated() {
      lines.append("  \(index + 1). \(Self.escaped(button.title)) (\(button.role))")
    }
    if priority != .normal { lines.append("priority: \(priority)") }
    return lines.joined(separator: "\n")
  }

  private static func escaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case "\\": escaped += "\\\\"
      default:
        if DiagnosticText.isControlCharacter(scalar) {
          escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        } else {
          escaped.unicodeScalars.append(scalar)
        }
      }
    }
    return escaped
  }
}
