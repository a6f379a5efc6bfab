/// Select Graphic Rendition attributes, combined into one escape sequence.
///
/// Only the renderer's own constant attributes ever reach the terminal as escape sequences;
/// untrusted text is sanitized before it is styled.
struct ANSIStyle: OptionSet, Sendable {
  let rawValue: UInt8

  static let bold = ANSIStyle(rawValue: 1 << 0)
  static let reverse = ANSIStyle(rawValue: 1 << 1)
  static let red = ANSIStyle(rawValue: 1 << 2)
  static let green = ANSIStyle(rawValue: 1 << 3)
  static let yellow = ANSIStyle(rawValue: 1 << 4)
  static let blue = ANSIStyle(rawValue: 1 << 5)

  /// The sequence that turns every attribute off.
  static let reset = "\u{1B}[0m"

  /// `text` wrapped in this style's sequence and a reset, or `text` alone when the style is empty
  /// or colour is off.
  func apply(to text: String, color: Bool) -> String {
    guard color, !isEmpty else { return text }
    var codes: [String] = []
    if contains(.bold) { codes.append("1") }
    if contains(.reverse) { codes.append("7") }
    if contains(.red) { codes.append("31") }
    if contains(.green) { codes.append("32") }
    if contains(.yellow) { codes.append("33") }
    if contains(.blue) { codes.append("34") }
    return "\u{1B}[" + codes.joined(separator: ";") + "m" + text + Self.reset
  }
}
