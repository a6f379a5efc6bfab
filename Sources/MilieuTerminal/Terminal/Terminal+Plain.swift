import Milieu
import MilieuAlerts

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Terminal {
  /// The longest answer, in bytes; a longer line is read to its end, dropped and refused.
  static let lineLimit = 4096

  /// An answer as it is echoed after the prompt: on one line, neutralised, and cut to fit.
  static func echo(of answer: String, width: Int) -> String {
    var text = TextSanitizer.sanitize(answer, mode: .singleLine)
    while text.last == " " { text.removeLast() }
    return TextWrapper.truncate(text, width: max(AlertRenderer.minimumWidth, width - 20))
  }

  /// Whether `descriptor` is a terminal that echoes what is typed.
  static func inputEchoes(_ descriptor: Int32) -> Bool {
    var attributes = termios()
    guard TerminalMode.isTerminal(descriptor), tcgetattr(descriptor, &attributes) == 0 else {
      return false
    }
    return attributes.c_lflag & tcflag_t(ECHO) != 0
  }

  /// The longest line read as a text field's text, in bytes: room for a field's 4,096
  /// characters of any script; a longer line is read to its end, dropped and refused.
  static let fieldLineLimit = 65_536

  /// Prints `alert` as numbered text, reads one line for each text field, then lines until one
  /// names a button.
  ///
  /// - Returns: The answer, and the text of each of the alert's fields as read.
  func presentPlainly(
    _ alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> Reply {
    let width = TerminalSize.currentColumns(of: [output, input])
    let screen = TerminalScreen.forOutput(output)
    try screen.write(renderer.renderPlain(alert, width: width).joined(separator: "\n") + "\n")
    var texts = alert.textFields.map(\.text)
    for index in texts.indices {
      switch try readText(
        of: alert.textFields[index], on: screen, width: width, cancellation: cancellation)
      {
      case .line(let text):
        texts[index] = text
      case .endOfInput, .tooLong:
        return (alert.cancelButtonIndex.map { .button($0) } ?? .dismissed, texts)
      case .cancelled:
        return (.cancelled, texts)
      }
    }
    return (try readButton(of: alert, on: screen, width: width, cancellation: cancellation), texts)
  }

  /// Reads lines until one names a button of `alert`.
  private func readButton(
    of alert: TerminalAlert, on screen: TerminalScreen, width: Int, cancellation: Int32?
  ) throws(TerminalError) -> TerminalAnswer {
    while true {
      try screen.writePrompt(renderer.plainPrompt(for: alert))
      let line: String
      let read: FileDescriptorIO.LineResult
      do throws(TerminalError) {
        read = try FileDescriptorIO.readLine(
          input, limit: Self.lineLimit, cancellation: cancellation)
      } catch {
        try? screen.endPrompt(echo: "")
        throw error
      }
      switch read {
      case .line(let text):
        line = text
        // An answer from a pipe or a file is shown after the prompt, so that the output reads
        // as a transcript. A terminal that echoes has shown it already, line break included
        // (`milieu-demo | cat`): a second copy would follow it.
        try screen.endPrompt(
          echo: Self.inputEchoes(input) ? nil : Self.echo(of: text, width: width))
      case .tooLong(let byteCount):
        try screen.endPrompt(echo: "")
        guard case .invalid(let message) = LineAnswer.parse("", for: alert) else {
          return .dismissed  // an alert without buttons: any line dismisses it
        }
        try screen.write(
          "That answer is \(byteCount) bytes long; an answer has at most \(Self.lineLimit). "
            + message + "\n")
        continue
      case .endOfInput:
        try screen.endPrompt(echo: "")
        return alert.cancelButtonIndex.map { .button($0) } ?? .dismissed
      case .cancelled:
        try screen.endPrompt(echo: "")
        return .cancelled
      }
      switch LineAnswer.parse(line, for: alert) {
      case .button(let index):
        return .button(index)
      case .dismiss:
        return .dismissed
      case .invalid(let message):
        try screen.write(message + "\n")
      }
    }
  }
}

extension Terminal {
  /// Reads lines until one is text a field may hold: an empty line keeps the text the field
  /// starts with; a line with a control character or more than 4,096 characters is refused
  /// with what to do, and asked again. A secure field's line is never shown: the terminal does
  /// not echo it, and it is not written after the prompt.
  ///
  /// - Returns: The text in ``FileDescriptorIO/LineResult/line(_:)``, or how input ended.
  fileprivate func readText(
    of field: AlertTextField, on screen: TerminalScreen, width: Int, cancellation: Int32?
  ) throws(TerminalError) -> FileDescriptorIO.LineResult {
    let echoes = Self.inputEchoes(input)
    while true {
      let read: FileDescriptorIO.LineResult
      do throws(TerminalError) {
        read = try readLine(
          after: renderer.plainPrompt(for: field, width: width), on: screen,
          hidden: field.isSecure && echoes, cancellation: cancellation)
      } catch {
        try? screen.endPrompt(echo: "")
        throw error
      }
      guard case .line(var text) = read else {
        try screen.endPrompt(echo: "")
        if case .tooLong(let byteCount) = read {
          try screen.write(
            "That text is \(byteCount) bytes long; a field holds at most "
              + "\(TextFieldEditor.maximumLength) characters. Type it again, shorter.\n")
          continue
        }
        return read
      }
      if text.hasSuffix("\r") { text.removeLast() }
      // A terminal that echoes showed the line, except a secure one, which is never shown.
      try screen.endPrompt(
        echo: field.isSecure ? "" : (echoes ? nil : Self.echo(of: text, width: width)))
      if text.isEmpty { return .line(field.text) }
      if let problem = Self.problem(with: text) {
        try screen.write(problem + "\n")
        continue
      }
      return .line(text)
    }
  }

  /// What is wrong with a line typed as a field's text, ready to show, or `nil` for none.
  static func problem(with text: String) -> String? {
    if text.unicodeScalars.contains(where: DiagnosticText.isControlCharacter) {
      return "A field holds one line of plain text; that line holds a control character, "
        + "such as a tab or an escape. Type it again without."
    }
    if text.count > TextFieldEditor.maximumLength {
      return "That text is \(text.count) characters long; a field holds at most "
        + "\(TextFieldEditor.maximumLength). Type it again, shorter."
    }
    return nil
  }

  /// Writes a prompt and reads one line after it; when `hidden`, the terminal's echo is off
  /// from before the prompt, which a person answers, until the line is read.
  private func readLine(
    after prompt: String, on screen: TerminalScreen, hidden: Bool, cancellation: Int32?
  ) throws(TerminalError) -> FileDescriptorIO.LineResult {
    if hidden {
      try RawModeState.enter(input: input, output: -1) { attributes in
        var quiet = attributes
        quiet.c_lflag &= ~tcflag_t(ECHO)
        return quiet
      }
    }
    defer { if hidden { RawModeState.leave() } }
    try screen.writePrompt(prompt)
    return try FileDescriptorIO.readLine(
      input, limit: Self.fieldLineLimit, cancellation: cancellation)
  }
}
