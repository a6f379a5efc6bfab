import Milieu
import MilieuAlerts

/// One text field being edited: its text and where the cursor is, changed key by key.
///
/// A pure value. The cursor counts characters (grapheme clusters) from the start of the text.
/// A field takes no control character and at most ``maximumLength`` characters, the rules an
/// `AlertTextField`'s text follows.
///
/// A secure field is edited at its end only, as a password prompt is: typing appends, Backspace
/// removes the last character, and the keys that move the cursor do nothing, so that what is
/// drawn (nothing) never depends on what was typed.
struct TextFieldEditor: Sendable, Hashable {
  /// The most characters a field holds.
  static let maximumLength = AlertValidation.maximumFieldTextLength

  /// The field, holding the text entered so far.
  private(set) var field: AlertTextField
  /// How many characters come before the cursor.
  private(set) var cursor: Int
  /// How many characters the text has.
  private(set) var count: Int

  /// An editor holding the field's text, with the cursor at its end.
  init(_ field: AlertTextField) {
    self.field = field
    count = field.text.count
    cursor = count
  }

  /// What the field asks for.
  var label: String { field.label }
  /// Whether the field hides what is typed.
  var isSecure: Bool { field.isSecure }
  /// The text entered so far.
  private(set) var text: String {
    get { field.text }
    set { field.text = newValue }
  }

  /// Whether the field is full: it holds ``maximumLength`` characters.
  var isFull: Bool { count >= Self.maximumLength }

  /// Inserts a scalar at the cursor, where it may join the character before it.
  ///
  /// - Returns: Whether the text changed: not for a control character or a full field.
  mutating func insert(_ scalar: Unicode.Scalar) -> Bool {
    guard !DiagnosticText.isControlCharacter(scalar), !isFull else { return false }
    let split = text.index(text.startIndex, offsetBy: cursor)
    var before = String(text[..<split])
    before.unicodeScalars.append(scalar)
    let after = text[split...]
    text = before + after
    count = text.count
    cursor = min(count, before.count)
    return true
  }

  /// Removes the character before the cursor.
  ///
  /// - Returns: Whether the text changed.
  mutating func deleteBackward() -> Bool {
    guard cursor > 0 else { return false }
    let end = text.index(text.startIndex, offsetBy: cursor)
    text.remove(at: text.index(before: end))
    cursor -= 1
    count = text.count
    cursor = min(cursor, count)
    return true
  }

  /// Removes the character after the cursor; nothing in a secure field.
  ///
  /// - Returns: Whether the text changed.
  mutating func deleteForward() -> Bool {
    guard !isSecure, cursor < count else { return false }
    text.remove(at: text.index(text.startIndex, offsetBy: cursor))
    count = text.count
    cursor = min(cursor, count)
    return true
  }

  /// Moves the cursor by `step` characters, within the text; nothing in a secure field.
  ///
  /// - Returns: Whether the cursor moved.
  mutating func moveCursor(by step: Int) -> Bool {
    moveCursor(to: cursor + step)
  }

  /// Moves the cursor to a position, within the text; nothing in a secure field.
  ///
  /// - Returns: Whether the cursor moved.
  mutating func moveCursor(to position: Int) -> Bool {
    let position = min(max(0, position), count)
    guard !isSecure, position != cursor else { return false }
    cursor = position
    return true
  }
}

extension TextFieldEditor: CustomStringConvertible, CustomReflectable {
  /// The field as it describes itself: a secure field's text hidden.
  var description: String { field.description }

  /// The field, and the cursor unless the field is secure, where it would tell how much was
  /// typed.
  var customMirror: Mirror {
    isSecure
      ? Mirror(self, children: ["field": field], displayStyle: .struct)
      : Mirror(self, children: ["field": field, "cursor": cursor], displayStyle: .struct)
  }
}
