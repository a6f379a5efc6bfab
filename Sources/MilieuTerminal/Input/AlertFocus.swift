/// The focus state machine of an alert on screen: which button is focused, and what each key
/// does.
///
/// A pure value: feed it keys with ``handle(_:)`` and act on the ``KeyAction`` it returns. Focus
/// moves in display order (``TerminalAlert/displayOrder``) and wraps around at both ends.
///
/// | key | action |
/// |---|---|
/// | → Tab ↓ | focus the next button, wrapping to the first |
/// | ← Shift-Tab ↑ | focus the previous button, wrapping to the last |
/// | Enter | choose the focused button (dismiss when there are no buttons) |
/// | 1 … 9 | choose the button shown with that number, if there is one |
/// | Esc, Ctrl-D | choose the cancel button if there is one, otherwise dismiss |
/// | Ctrl-C | interrupt |
///
/// Choosing a button also focuses it, so a final redraw shows what was chosen.
struct AlertFocus: Hashable, Sendable {
  /// The index in ``TerminalAlert/buttons`` of the focused button, or `nil` if none is focused.
  ///
  /// Pass it to ``AlertRenderer/render(_:width:color:focusedButton:)`` to draw the focus.
  private(set) var focusedButton: Int?

  private let displayOrder: [Int]
  private let cancelButtonIndex: Int?

  /// Creates the focus state for `alert`, focused on ``TerminalAlert/initialFocus``.
  ///
  /// - Parameter alert: The alert on screen.
  init(alert: TerminalAlert) {
    self.init(alert: alert, focusedButton: alert.initialFocus)
  }

  /// Creates the focus state for `alert`, focused on a button of your choice.
  ///
  /// - Parameters:
  ///   - alert: The alert on screen.
  ///   - focusedButton: The index in ``TerminalAlert/buttons`` to focus first. `nil` or an index
  ///     out of range focuses nothing until the first move.
  init(alert: TerminalAlert, focusedButton: Int?) {
    displayOrder = alert.displayOrder
    cancelButtonIndex = alert.cancelButtonIndex
    self.focusedButton = focusedButton.flatMap { alert.buttons.indices.contains($0) ? $0 : nil }
  }

  /// Applies one key and says what it does.
  ///
  /// - Parameter key: The key pressed.
  /// - Returns: The action to take.
  mutating func handle(_ key: Key) -> KeyAction {
    switch key {
    case .right, .tab, .down:
      return move(by: 1)
    case .left, .shiftTab, .up:
      return move(by: -1)
    case .enter:
      if displayOrder.isEmpty { return .dismiss }
      return focusedButton.map { .tap($0) } ?? .none
    case .digit(let number):
      guard displayOrder.indices.contains(number - 1) else { return .none }
      return tap(displayOrder[number - 1])
    case .escape, .endOfInput:
      return cancelButtonIndex.map { tap($0) } ?? .dismiss
    case .interrupt:
      return .interrupt
    case .other, .unknown:
      return .none
    }
  }

  private mutating func tap(_ index: Int) -> KeyAction {
    focusedButton = index
    return .tap(index)
  }

  private mutating func move(by step: Int) -> KeyAction {
    guard !displayOrder.isEmpty else { return .none }
    let count = displayOrder.count
    let next: Int
    if let focused = focusedButton, let position = displayOrder.firstIndex(of: focused) {
      next = ((position + step) % count + count) % count
    } else {
      next = step > 0 ? 0 : count - 1
    }
    focusedButton = displayOrder[next]
    return .moveFocus(to: displayOrder[next])
  }
}
