/// Text from callers — titles, messages, node names — made safe to quote in a diagnostic that
/// may end up on a terminal.
///
/// A diagnostic quotes what the caller passed, and a terminal acts on the control characters
/// inside it: `.cancel("\u{1B}]0;pwned\u{07}")` would retitle the window of whoever reads the
/// warning. Every diagnostic Milieu's modules compose passes user text through ``quoted(_:)``,
/// and ``IssueReporter/standardError`` passes whole messages through ``neutralised(_:lineBreak:)``,
/// which rewrite control characters, escape introducers and bidi controls as visible, inert
/// text: the scheme `MilieuTerminal`'s `TextSanitizer` documents and delegates to.
///
/// It also says, for every module, what a control character is (``isControlCharacter(_:)``):
/// what an alert's text field may not hold, what the key decoder never types and what a golden
/// rendering escapes.
package enum DiagnosticText {
  /// Whether `scalar` is a control character: a C0 control (tab and line feed included), DEL, a
  /// C1 control, or a line or paragraph separator (U+2028, U+2029).
  ///
  /// ```swift
  /// DiagnosticText.isControlCharacter("\u{2028}")  // true
  /// DiagnosticText.isControlCharacter("\u{200E}")  // false: a bidi control, not a control
  /// ```
  package static func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
    default: false
    }
  }

  /// `text` between double quotes, on one line and neutralised.
  ///
  /// ```swift
  /// DiagnosticText.quoted("\u{1B}]0;pwned\u{07}")  // "\"^[]0;pwned^G\""
  /// ```
  package static func quoted(_ text: String) -> String {
    "\"" + neutralised(text, lineBreak: " ") + "\""
  }

  /// `text` with every control character, escape introducer and bidi control rewritten as
  /// visible text, and every line break replaced by `lineBreak`.
  ///
  /// - Complexity: O(*n*) in the number of Unicode scalars.
  package static func neutralised(_ text: String, lineBreak: Unicode.Scalar) -> String {
    // Most text has nothing to rewrite: hand it back without building a copy.
    if !text.unicodeScalars.contains(where: needsNeutralising) { return text }
    var result = String.UnicodeScalarView()
    var previousWasCarriageReturn = false
    for scalar in text.unicodeScalars {
      defer { previousWasCarriageReturn = scalar == "\r" }
      switch scalar.value {
      case 0x0A where previousWasCarriageReturn:
        continue  // the CR of this CR LF pair already produced the line break
      case 0x0A, 0x0D, 0x2028, 0x2029:
        result.append(lineBreak)
      case 0x09:
        result.append(" ")
      case 0x00...0x1F:
        result.append("^")
        result.append(Unicode.Scalar(UInt8(scalar.value) + 0x40))
      case 0x7F:
        result.append(contentsOf: "^?".unicodeScalars)
      case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
        result.append(contentsOf: codePointNotation(scalar).unicodeScalars)
      default:
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// Whether `scalar` is one that ``neutralised(_:lineBreak:)`` rewrites: a control character
  /// (``isControlCharacter(_:)``) or a bidi control.
  package static func needsNeutralising(_ scalar: Unicode.Scalar) -> Bool {
    if isControlCharacter(scalar) { return true }
    switch scalar.value {
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  private static func codePointNotation(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
  }
}
