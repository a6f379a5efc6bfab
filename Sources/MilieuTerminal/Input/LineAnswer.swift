/// The meaning of one line typed in answer to an alert when standard input is not a terminal.
///
/// ``parse(_:for:)`` is a pure function. Whitespace around the line is ignored. A line is, in
/// order of precedence:
///
/// 1. a number from 1 to the number of buttons — the button shown with that number;
/// 2. a button's title, compared case-insensitively — the first such button in display order;
/// 3. anything else — ``invalid(message:)`` with a message that lists the valid answers.
///
/// An alert without buttons is dismissed by any line.
enum LineAnswer: Hashable, Sendable {
  /// The line names the button at this index in ``TerminalAlert/buttons``.
  case button(Int)
  /// The alert has no buttons; the line dismisses it.
  case dismiss
  /// The line names no button; `message` says what would, ready to show the user.
  case invalid(message: String)

  /// Interprets `line` as an answer to `alert`.
  ///
  /// - Parameters:
  ///   - line: One line of input, with or without its line terminator.
  ///   - alert: The alert being answered.
  /// - Returns: The button named, ``dismiss`` for an alert without buttons, or ``invalid(message:)``.
  static func parse(_ line: String, for alert: TerminalAlert) -> LineAnswer {
    let order = alert.displayOrder
    guard !order.isEmpty else { return .dismiss }
    let answer = trimmed(line)
    if !answer.isEmpty, answer.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      let number = Int(answer), (1...order.count).contains(number)
    {
      return .button(order[number - 1])
    }
    let folded = answer.lowercased()
    for index in order {
      let title = alert.buttons[index].title
      if trimmed(title).lowercased() == folded
        || trimmed(TextSanitizer.sanitize(title, mode: .singleLine)).lowercased() == folded
      {
        return .button(index)
      }
    }
    return .invalid(message: invalidMessage(for: alert))
  }

  private static func invalidMessage(for alert: TerminalAlert) -> String {
    let titles = alert.displayOrder.map {
      TextSanitizer.sanitize(alert.buttons[$0].title, mode: .singleLine)
    }
    if titles.count == 1 {
      return "Please answer with 1 or \(titles[0])."
    }
    return "Please answer with a number from 1 to \(titles.count) or one of: "
      + titles.joined(separator: ", ") + "."
  }

  private static func trimmed(_ text: String) -> Substring {
    let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
    let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? start
    return text[start..<max(start, end)]
  }
}
