/// A key the alert presenter reacts to, as decoded from raw terminal input by ``KeyDecoder``.
///
/// Everything the presenter has no use for decodes as ``other`` (one printable character, one
/// UTF-8 encoded scalar, an Alt-modified key or an unused control byte) or ``unknown`` (an escape
/// sequence that names no key here, or one cut off or too long).
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
  /// Any other single key: a printable character, a UTF-8 scalar, a control byte, Alt-key.
  case other
  /// An escape sequence for a key not listed here, or a malformed, cut-off or overlong one.
  case unknown
}
