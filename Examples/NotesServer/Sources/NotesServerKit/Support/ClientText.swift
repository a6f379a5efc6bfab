/// What text a client sends may hold, and how a log line quotes it.
///
/// A log is read on a terminal or parsed line by line. A line break in a note's title would end
/// its log line and let the title write one of its own, in any user's name; an escape sequence
/// would act on the terminal that shows it; a bidi control would reorder what the reader sees.
/// Titles holding such characters are refused (``NoteDraft/validate()``), and whatever client
/// text a log line carries goes through ``forLog(_:quoted:)`` all the same.
///
/// ```swift
/// ClientText.forLog("a\nb", quoted: true)  // "a\u{A}b", quotes included
/// ```
enum ClientText {
  /// Whether a scalar can end a line, act on a terminal or reorder what it shows: the C0 and C1
  /// controls and DEL, the line and paragraph separators, and the bidi controls.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Whether text meant as one line of plain text must not hold it.
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E,
      0x2066...0x2069:
      true
    default:
      false
    }
  }

  /// Whether a scalar shows nothing: white space, a control or format character, or one Unicode
  /// says to ignore when it cannot be shown (a zero-width space, a variation selector, a
  /// Hangul filler).
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Whether it leaves no visible mark of its own.
  static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    let properties = scalar.properties
    switch properties.generalCategory {
    case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator:
      return true
    default:
      return properties.isWhitespace || properties.isDefaultIgnorableCodePoint
    }
  }

  /// A scalar as `U+` and at least four hexadecimal digits, the way to name a character that
  /// cannot be shown.
  ///
  /// - Parameter scalar: The scalar.
  /// - Returns: Its code point, such as `U+000A`.
  static func codePoint(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  /// Client text as a log line may carry it: every ``isControl(_:)`` scalar written as Swift
  /// writes it in a string literal, `\u{A}`, and backslashes doubled, so that the line stays one
  /// line, acts on no terminal, and says exactly what the client sent.
  ///
  /// - Parameters:
  ///   - text: The client's text.
  ///   - quoted: Whether to put it between double quotes, escaping the quotes it holds.
  /// - Returns: The text to log.
  static func forLog(_ text: String, quoted: Bool) -> String {
    let needsEscaping = text.unicodeScalars.contains {
      isControl($0) || $0 == "\\" || quoted && $0 == "\""
    }
    guard needsEscaping else { return quoted ? "\"" + text + "\"" : text }
    var escaped = String.UnicodeScalarView()
    if quoted { escaped.append("\"") }
    for scalar in text.unicodeScalars {
      if isControl(scalar) {
        escaped.append(
          contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
      } else {
        if scalar == "\\" || quoted && scalar == "\"" { escaped.append("\\") }
        escaped.append(scalar)
      }
    }
    if quoted { escaped.append("\"") }
    return String(escaped)
  }
}
