/// The focus state machine of an alert on screen: which text field or button is focused, what
/// the fields hold, and what each key does.
///
/// A pure value: feed it keys with ``handle(_:)`` and act on the ``KeyAction`` it returns. The
/// focus moves through the text fields, in order, then the buttons in display order
/// (``TerminalAlert/displayOrder``), and wraps around at both ends. An alert with text fields
/// starts with the first field focused; one without, with ``TerminalAlert/initialFocus``.
///
/// | key | on a button | in a text field |
/// |---|---|---|
/// | Tab ↓ / Shift-Tab ↑ | focus the next / previous field or button | the same |
/// | → / ← | focus the next / previous button, wrapping among the buttons | move the cursor |
/// | Enter | choose the focused button (dismiss when there are no buttons) | focus the next field; in the last, choose the first default button, or else focus the cancel button (with neither, nothing) |
/// | 1 … 9 | choose the button shown with that number, if there is one | type the digit |
/// | a character, a paste | nothing | type it |
/// | Backspace, Delete, Home, End (Ctrl-A, Ctrl-E) | nothing | edit |
/// | Esc, Ctrl-D | choose the cancel button if there is one, otherwise dismiss | the same |
/// | Ctrl-C | interrupt | the same |
///
/// Choosing a button also focuses it, so a final redraw shows what was chosen. A paste that
/// holds control characters, and typing into a full field, leave a ``notice`` that the next
/// key other than a paste clears.
struct AlertFocus: Hashable, Sendable {
  /// The index in ``TerminalAlert/buttons`` of the focused button, or `nil` if none is focused.
  ///
  /// Pass it to ``AlertRenderer/render(_:width:color:focusedButton:)`` to draw the focus.
  private(set) var focusedButton: Int?
  /// The index in ``TerminalAlert/textFields`` of the focused field, or `nil` if none is.
  private(set) var focusedField: Int?
  /// The text fields, as edited so far.
  private(set) var fields: [TextFieldEditor]
  /// What the last key could not do, to show under the fields; `nil` when there is nothing to
  /// say.
  private(set) var notice: String?

  private let displayOrder: [Int]
  private let cancelButtonIndex: Int?
  /// The button Enter in the last text field chooses: the first default button.
  private let submitButton: Int?
  /// The button focused when there are no fields, and that Enter in the last field focuses
  /// when there is no default button.
  private let initialButton: Int?
  /// How many control characters the paste under way held.
  private var pastedControlCharacters = 0

  /// Creates the focus state for `alert`: on its first text field, or on
  /// ``TerminalAlert/initialFocus`` when it has none.
  ///
  /// - Parameter alert: The alert on screen.
  init(alert: TerminalAlert) {
    self.init(alert: alert, focusedButton: alert.textFields.isEmpty ? alert.initialFocus : nil)
    if !fields.isEmpty { focusedField = 0 }
  }

  /// Creates the focus state for `alert`, focused on a button of your choice, its fields
  /// holding the text they start with.
  ///
  /// - Parameters:
  ///   - alert: The alert on screen.
  ///   - focusedButton: The index in ``TerminalAlert/buttons`` to focus first. `nil` or an index
  ///     out of range focuses nothing until the first move.
  init(alert: TerminalAlert, focusedButton: Int?) {
    displayOrder = alert.displayOrder
    cancelButtonIndex = alert.cancelButtonIndex
    submitButton = alert.buttons.firstIndex { $0.role == .default }
    initialButton = alert.initialFocus
    fields = alert.textFields.map(TextFieldEditor.init)
    self.focusedButton = focusedButton.flatMap { alert.buttons.indices.contains($0) ? $0 : nil }
  }

  /// The text of each field, in order.
  var texts: [String] { fields.map(\.text) }

  /// Applies one key and says what it does.
  ///
  /// - Parameter key: The key pressed.
  /// - Returns: The action to take.
  mutating func handle(_ key: Key) -> KeyAction {
    let hadNotice = notice != nil
    switch key {
    case .pasted, .pastedControl: break
    default:
      pastedControlCharacters = 0
      notice = nil
    }
    let action = act(on: key)
    return action == .none && hadNotice && notice == nil ? .redraw : action
  }

  private mutating func act(on key: Key) -> KeyAction {
    switch key {
    case .interrupt:
      return .interrupt
    case .escape, .endOfInput:
      return cancelButtonIndex.map { tap($0) } ?? .dismiss
    case .tab, .down:
      return moveFocus(by: 1)
    case .shiftTab, .up:
      return moveFocus(by: -1)
    default:
      break
    }
    if let field = focusedField { return edit(field, with: key) }
    switch key {
    case .right:
      return moveAmongButtons(by: 1)
    case .left:
      return moveAmongButtons(by: -1)
    case .enter:
      if displayOrder.isEmpty { return .dismiss }
      return focusedButton.map { .tap($0) } ?? .none
    case .digit(let number):
      guard displayOrder.indices.contains(number - 1) else { return .none }
      return tap(displayOrder[number - 1])
    default:
      return .none
    }
  }

  private mutating func edit(_ field: Int, with key: Key) -> KeyAction {
    let changed: Bool
    switch key {
    case .character(let scalar), .pasted(let scalar):
      changed = type(scalar, into: field)
    case .digit(let digit):
      changed = type(Unicode.Scalar(UInt8(0x30 + digit)), into: field)
    case .pastedControl(let replacement):
      pastedControlCharacters += 1
      notice =
        "The pasted text held \(pastedControlCharacters) control character"
        + (pastedControlCharacters == 1 ? "" : "s")
        + ": line breaks and tabs became spaces, the others were left out."
      _ = replacement.map { type($0, into: field) }
      changed = true
    case .backspace: changed = fields[field].deleteBackward()
    case .delete: changed = fields[field].deleteForward()
    case .left: changed = fields[field].moveCursor(by: -1)
    case .right: changed = fields[field].moveCursor(by: 1)
    case .home: changed = fields[field].moveCursor(to: 0)
    case .end: changed = fields[field].moveCursor(to: fields[field].count)
    case .enter:
      if field + 1 < fields.count { return focus(field: field + 1) }
      if let submitButton { return tap(submitButton) }
      guard let initialButton else { return .none }
      focusedField = nil
      focusedButton = initialButton
      return .redraw
    default:
      changed = false
    }
    return changed ? .redraw : .none
  }

  /// Types a scalar into a field; a full field leaves a notice instead.
  private mutating func type(_ scalar: Unicode.Scalar, into field: Int) -> Bool {
    if fields[field].insert(scalar) { return true }
    guard fields[field].isFull else { return false }
    notice = "A field holds at most \(TextFieldEditor.maximumLength) characters."
    return true
  }

  private mutating func tap(_ index: Int) -> KeyAction {
    focusedField = nil
    focusedButton = index
    return .tap(index)
  }

  private mutating func focus(field: Int) -> KeyAction {
    focusedField = field
    focusedButton = nil
    return .redraw
  }

  /// Moves through the fields, then the buttons in display order, wrapping around.
  private mutating func moveFocus(by step: Int) -> KeyAction {
    let stops = fields.count + displayOrder.count
    guard !fields.isEmpty else { return moveAmongButtons(by: step) }
    let position: Int
    if let focusedField {
      position = focusedField
    } else if let focusedButton, let index = displayOrder.firstIndex(of: focusedButton) {
      position = fields.count + index
    } else {
      position = step > 0 ? -1 : stops
    }
    let next = ((position + step) % stops + stops) % stops
    if next < fields.count { return focus(field: next) }
    focusedField = nil
    focusedButton = displayOrder[next - fields.count]
    return .redraw
  }

  private mutating func moveAmongButtons(by step: Int) -> KeyAction {
    guard !displayOrder.isEmpty else { return .none }
    let count = displayOrder.count
    let next: Int
    if let focused = focusedButton, let position = displayOrder.firstIndex(of: focused) {
      next = ((position + step) % count + count) % count
    } else {
      next = step > 0 ? 0 : count - 1
    }
    focusedField = nil
    focusedButton = displayOrder[next]
    return .redraw
  }
}
