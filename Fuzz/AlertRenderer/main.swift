import Milieu
import MilieuAlerts

@testable import MilieuTerminal

// Fuzzes the terminal renderer and the text it is built on with arbitrary UTF-8 text, any
// widths, colour on or off and any focus, and text fields edited with arbitrary keys: nothing
// crashes, the box is a rectangle as wide as the rules say, no control character, C1 control or
// bidi control from the input reaches the terminal, keys never put a control character into a
// field nor more than a field holds, a secure field draws the same whatever was typed, and
// typed answers name the buttons they should.

private let roles: [TerminalButton.Role] = [.default, .cancel, .destructive]

/// libFuzzer's entry point: checks one input, and traps when an invariant fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzInput(data, count: count)
  // Up to about 4,000 characters a text: long enough to wrap many times over.
  let title = input.text(maximumRepetitions: 32)
  let message: String? = input.bool() ? input.text(maximumRepetitions: 32) : nil
  let buttons = (0..<input.number(below: 12)).map { _ in
    TerminalButton(input.text(maximumRepetitions: 32), role: roles[input.number(below: 3)])
  }
  var alert = TerminalAlert(title: title, message: message, buttons: buttons)
  alert.textFields = (0..<input.number(below: 4)).map { _ in
    AlertTextField(
      input.text(maximumRepetitions: 32), text: input.text(maximumRepetitions: 32),
      isSecure: input.bool())
  }
  let width = input.int16() % 400
  let maximumWidth = input.int16() % 400
  let color = input.bool()
  let focus: Int? = input.bool() ? input.number(below: 14) - 1 : nil
  let typed = input.text(maximumRepetitions: 32)
  let height: Int? = input.bool() ? input.number(below: 40) : nil
  let keys = KeyDecoder.decodeAll(input.bytes(input.number(below: 256)))

  checkSanitizer(title)
  checkSanitizer(typed)
  checkWrapping(TextSanitizer.sanitize(message ?? title, mode: .multiline), width: width)
  let renderer = AlertRenderer(maximumWidth: maximumWidth)
  checkBox(
    renderer.render(alert, width: width, color: color, focusedButton: focus), renderer: renderer,
    width: width, color: color)
  let edited = checkEditing(alert, keys: keys)
  checkBox(
    renderer.render(alert, width: width, color: color, focus: edited, maximumHeight: height),
    renderer: renderer, width: width, color: color)
  checkSecureFields(edited, color: color)
  checkPlain(alert, width: width)
  checkAnswers(alert, typed: typed)
  return 0
}

extension KeyDecoder {
  /// The keys some bytes decode to, with a flush at the end.
  static func decodeAll(_ bytes: [UInt8]) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.decode(bytes) + decoder.flush()
  }
}

/// Feeds the keys to the alert's focus: every field keeps its text whole — none gains a control
/// character or grows past what a field holds — and every cursor stays within its text.
private func checkEditing(_ alert: TerminalAlert, keys: [Key]) -> AlertFocus {
  var focus = AlertFocus(alert: alert)
  for key in keys {
    switch focus.handle(key) {
    case .tap(let index):
      precondition(alert.buttons.indices.contains(index), "a key tapped button \(index)")
    default: break
    }
    if let field = focus.focusedField {
      precondition(focus.fields.indices.contains(field), "the focus is on field \(field)")
    }
  }
  for (field, start) in zip(focus.fields, alert.textFields) {
    precondition((0...field.count).contains(field.cursor), "a cursor left its text")
    precondition(field.count == field.text.count, "a field miscounts its text")
    let added = field.text.unicodeScalars.filter { !start.text.unicodeScalars.contains($0) }
    precondition(
      !added.contains(where: DiagnosticText.isControlCharacter), "a key typed a control character")
    precondition(
      field.count <= max(TextFieldEditor.maximumLength, start.text.count),
      "a field grew to \(field.count) characters")
  }
  return focus
}

/// A secure field draws the same whatever was typed into it.
private func checkSecureFields(_ edited: AlertFocus, color: Bool) {
  for (index, field) in edited.fields.enumerated() where field.isSecure {
    let empty = TextFieldEditor(.secure(field.label))
    for focused in [false, true] {
      precondition(
        AlertRenderer.fieldContent(field, isFocused: focused, width: 12, color: color)
          == AlertRenderer.fieldContent(empty, isFocused: focused, width: 12, color: color),
        "secure field \(index) shows what was typed")
    }
  }
}

/// The sanitizer's output is inert, and sanitizing it again changes nothing.
private func checkSanitizer(_ text: String) {
  for mode in [TextSanitizer.Mode.singleLine, .multiline] {
    let safe = TextSanitizer.sanitize(text, mode: mode)
    for scalar in safe.unicodeScalars where TextSanitizer.needsNeutralising(scalar) {
      precondition(mode == .multiline && scalar == "\n", "\(mode) let U+\(hex(scalar)) through")
    }
    precondition(TextSanitizer.sanitize(safe, mode: mode) == safe, "sanitizing is not idempotent")
  }
}

/// Wrapped lines fit the width, unless one visible grapheme alone is wider (zero-width ones,
/// such as a stray variation selector, may share its line); a cut fits its width.
private func checkWrapping(_ text: String, width: Int) {
  let lines = TextWrapper.wrap(text, width: width)
  precondition(!lines.isEmpty, "wrapping gave no line")
  for line in lines {
    let visible = line.count { DisplayWidth.columns(of: $0) > 0 }
    precondition(
      DisplayWidth.columns(of: line) <= max(1, width) || visible == 1,
      "a wrapped line is \(DisplayWidth.columns(of: line)) columns wide, the width is \(width)")
  }
  let cut = TextWrapper.truncate(text, width: width)
  precondition(DisplayWidth.columns(of: cut) <= max(0, width), "a cut does not fit \(width)")
}

/// The box: every line as wide as the box, the box within its bounds, and nothing from the
/// input that a terminal would act on.
private func checkBox(_ lines: [String], renderer: AlertRenderer, width: Int, color: Bool) {
  precondition(lines.count >= 3, "a box has no body")
  let limit = max(AlertRenderer.minimumWidth, min(width, renderer.maximumWidth))
  var boxWidth: Int?
  for line in lines {
    let visible = withoutOwnStyles(line, allowed: color)
    let columns = boxLineColumns(visible)
    if let boxWidth {
      precondition(columns == boxWidth, "a line is \(columns) columns, the box \(boxWidth)")
    } else {
      boxWidth = columns
      precondition(
        (AlertRenderer.minimumWidth...limit).contains(columns),
        "the box is \(columns) columns wide; the bounds are \(AlertRenderer.minimumWidth)…\(limit)"
      )
    }
    for scalar in visible.unicodeScalars {
      precondition(!TextSanitizer.needsNeutralising(scalar), "the box shows U+\(hex(scalar))")
    }
  }
}

/// Plain text: no escape sequence at all, no control character, and one line per button.
private func checkPlain(_ alert: TerminalAlert, width: Int) {
  let lines = AlertRenderer().renderPlain(alert, width: width)
  precondition(lines.count >= alert.buttons.count + 1, "plain text lost a button")
  for line in lines {
    for scalar in line.unicodeScalars {
      precondition(!TextSanitizer.needsNeutralising(scalar), "plain text shows U+\(hex(scalar))")
    }
  }
  // Compared as bytes: a title that starts with a combining mark joins the space before it.
  for (position, _) in alert.displayOrder.enumerated() {
    let prefix = "  \(position + 1)) ".utf8
    precondition(
      lines.contains { $0.utf8.starts(with: prefix) }, "button \(position + 1) is missing")
  }
}

/// A number names the button shown with it, a title names a button with that title, and any
/// other line is refused with a message that is safe to print.
private func checkAnswers(_ alert: TerminalAlert, typed: String) {
  let order = alert.displayOrder
  for (position, index) in order.enumerated() {
    let answer = LineAnswer.parse(" \(position + 1)\n", for: alert)
    precondition(answer == .button(index), "\(position + 1) gave \(answer), not button \(index)")
  }
  for button in alert.buttons {
    if case .button(let index) = LineAnswer.parse(button.title, for: alert) {
      precondition(alert.buttons.indices.contains(index), "a title named no button")
    }
  }
  switch LineAnswer.parse(typed, for: alert) {
  case .button(let index):
    precondition(alert.buttons.indices.contains(index), "a line named button \(index)")
  case .dismiss:
    precondition(alert.buttons.isEmpty, "a line dismissed an alert that has buttons")
  case .invalid(let message):
    precondition(!alert.buttons.isEmpty, "a line was refused by an alert without buttons")
    for scalar in message.unicodeScalars {
      precondition(!TextSanitizer.needsNeutralising(scalar), "a prompt shows U+\(hex(scalar))")
    }
  }
}

/// The width of a line of the box: its borders and their spaces, plus its content measured on
/// its own. Measured whole, a content that starts with a mark that extends the grapheme before
/// it (a combining accent) would join the border's space into one cluster, whose width
/// `DisplayWidth` approximates differently from the two parts a terminal draws. (A leading emoji
/// modifier now measures as the space plus its swatch, but the split costs nothing.)
private func boxLineColumns(_ line: String) -> Int {
  let scalars = Array(line.unicodeScalars)
  guard scalars.count >= 4, scalars[0] == "│", scalars[1] == " ",
    scalars[scalars.count - 2] == " ", scalars[scalars.count - 1] == "│"
  else { return DisplayWidth.columns(of: line) }
  var content = String.UnicodeScalarView()
  content.append(contentsOf: scalars[2..<(scalars.count - 2)])
  return 4 + DisplayWidth.columns(of: String(content))
}

/// The line without the renderer's own styles (`ESC [ digits ; … m`), when colour is on; any
/// other ESC is left in, for the checks to find.
private func withoutOwnStyles(_ line: String, allowed: Bool) -> String {
  guard allowed else { return line }
  var result = String.UnicodeScalarView()
  var scalars = line.unicodeScalars[...]
  while let scalar = scalars.first {
    if scalar == "\u{1B}", let end = styleEnd(in: scalars) {
      scalars = scalars[end...]
      continue
    }
    result.append(scalar)
    scalars = scalars.dropFirst()
  }
  return String(result)
}

/// Where the style sequence at the start of `scalars` ends, if it is one.
private func styleEnd(in scalars: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView.Index?
{
  var index = scalars.index(after: scalars.startIndex)
  guard index < scalars.endIndex, scalars[index] == "[" else { return nil }
  index = scalars.index(after: index)
  while index < scalars.endIndex {
    let scalar = scalars[index]
    if scalar == "m" { return scalars.index(after: index) }
    guard ("0"..."9").contains(scalar) || scalar == ";" else { return nil }
    index = scalars.index(after: index)
  }
  return nil
}

private func hex(_ scalar: Unicode.Scalar) -> String {
  String(scalar.value, radix: 16, uppercase: true)
}
