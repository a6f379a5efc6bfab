import Milieu
import MilieuAlerts

/// Neutralises untrusted text so that a terminal shows it and never interprets it.
///
/// Titles, messages and button titles come from anywhere — file names, server errors, user
/// input — and a terminal acts on the control characters inside them: an ESC sequence can
/// recolour the screen, move the cursor, retitle the window or hide text; a bidi override can make
/// `Delete` read as something else. The sanitizer rewrites every such character into visible,
/// inert text, following one scheme:
///
/// | input | shown as |
/// |---|---|
/// | C0 control U+0000–U+001F (ESC included) | caret notation: `^@` … `^_`, so ESC is `^[` |
/// | DEL U+007F | `^?` |
/// | C1 control U+0080–U+009F | `<U+0085>` … (the code point in angle brackets) |
/// | bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | `<U+202E>` … |
/// | tab U+0009 | one space |
/// | line breaks: LF, CR, CR LF, U+2028, U+2029 | `\n` in ``Mode/multiline``, one space in ``Mode/singleLine`` |
///
/// Only the introducing ESC is rewritten; the rest of a sequence is ordinary printable text and
/// stays as it is, so `"\u{1B}[31mred"` shows as `^[[31mred`. Everything else, including emoji
/// and combining marks, passes through unchanged.
enum TextSanitizer {
  /// Whether line breaks survive sanitising.
  enum Mode: Sendable, Hashable {
    /// Every line break becomes a space: titles, buttons, toasts.
    case singleLine
    /// Every line break becomes `\n`: messages, which are then wrapped paragraph by paragraph.
    case multiline
  }

  /// Returns `text` with every control character, escape introducer and bidi control rewritten
  /// as visible, inert text.
  ///
  /// The result never contains a scalar below U+0020 other than `\n` (and `\n` only in
  /// ``Mode/multiline``), never DEL, never a C1 control and never a bidi control.
  ///
  /// - Parameters:
  ///   - text: Untrusted text.
  ///   - mode: Whether line breaks are kept as `\n`.
  /// - Returns: Text that is safe to write to a terminal.
  /// - Complexity: O(*n*) in the number of Unicode scalars.
  static func sanitize(_ text: String, mode: Mode) -> String {
    DiagnosticText.neutralised(text, lineBreak: mode == .multiline ? "\n" : " ")
  }

  /// Whether `scalar` is one the sanitizer rewrites (a tab or line break included).
  ///
  /// - Parameter scalar: The scalar to test.
  /// - Returns: `true` if ``sanitize(_:mode:)`` never lets `scalar` through unchanged.
  static func needsNeutralising(_ scalar: Unicode.Scalar) -> Bool {
    DiagnosticText.needsNeutralising(scalar)
  }
}
