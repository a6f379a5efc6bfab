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

  /// Prints `alert` as numbered text and reads lines until one names a button.
  func presentPlainly(
    _ alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> TerminalAnswer {
    let width = TerminalSize.currentColumns(of: [output, input])
    let screen = TerminalScreen.forOutput(output)
    try screen.write(renderer.renderPlain(alert, width: width).joined(separator: "\n") + "\n")
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
