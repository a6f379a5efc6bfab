/// A key the alert presenter reacts to, as decoded from raw terminal input by ``KeyDecoder``.
///
/// Everything the presenter has no use for decodes as ``other`` (an Alt-modified key, an unused
/// control byte, or invalid UTF-8) or ``unknown`` (an escape sequence that names no key here, or
/// one cut off or too long).
enum Key: Hashable, Sendable {
  /// ← (`ESC [ D` or `ESC O D`, with or without modifier parameters).
  case left
  /// → (`ESC [ C` or `ESC O C`).
  case right
  /// ↑ (`ESC [ A` or `ESC O A`).
  case up
  /// ↓ (`ESC [ B` or `ESC O B`).
  case down
  /// Tab (byte 0x09).
  case tab
  /// Shift-Tab (`ESC [ Z`).
  case shiftTab
  /// Enter or Return: CR (0x0D), LF (0x0A), a CR LF pair, or keypad Enter (`ESC O M`).
  case enter
  /// Esc pressed on its own: a lone ESC byte, reported once input stalls, or an ESC followed by
  /// another control byte.
  case escape
  /// A digit key from 1 to 9; the payload is the digit.
  case digit(Int)
  /// Ctrl-C (byte 0x03), which raw mode delivers as a byte instead of a signal.
  case interrupt
  /// Ctrl-D (byte 0x04).
  case endOfInput
  /// A character typed: a printable ASCII byte other than the digits 1 to 9, or one UTF-8
  /// encoded scalar that is not a C0 or C1 control. (A line or paragraph separator, U+2028 or
  /// U+2029, is one: a control character all the same, which a field refuses.)
  case character(Unicode.Scalar)
  /// Backspace: DEL (0x7F) or Ctrl-H (0x08).
  case backspace
  /// Delete (`ESC [ 3 ~`, with or without modifier parameters).
  case delete
  /// Home: `ESC [ H`, `ESC O H`, `ESC [ 1 ~`, `ESC [ 7 ~`, or Ctrl-A (0x01).
  case home
  /// End: `ESC [ F`, `ESC O F`, `ESC [ 4 ~`, `ESC [ 8 ~`, or Ctrl-E (0x05).
  case end
  /// A character inside a bracketed paste (`ESC [ 200 ~` … `ESC [ 201 ~`): text, never a key.
  case pasted(Unicode.Scalar)
  /// A control character or key inside a bracketed paste: a line break or a tab carries the
  /// space that takes its place in a text field; anything else carries nothing.
  case pastedControl(Unicode.Scalar?)
  /// Any other single key: an Alt-modified key, an unused control byte, invalid UTF-8.
  case other
  /// An escape sequence for a key not listed here, or a malformed, cut-off or overlong one.
  case unknown
}
