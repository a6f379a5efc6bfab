import MilieuTestSupport
import Testing

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Presents `alert` with standard input and output replaced by pipes: `input` is everything the
/// user types, then end of input.
private func presentPlainly(
  _ alert: TerminalAlert, input: String
) throws -> (choice: TerminalAnswer, output: String) {
  let (inputRead, inputWrite) = try makePipe()
  let (outputRead, outputWrite) = try makePipe()
  defer { for descriptor in [inputRead, outputRead] { close(descriptor) } }
  let bytes = Array(input.utf8)
  _ = bytes.withUnsafeBytes { write(inputWrite, $0.baseAddress, $0.count) }
  close(inputWrite)
  let presenter = Terminal(input: inputRead, output: outputWrite)
  #expect(!presenter.isInteractive)
  let choice = try presenter.present(alert)
  close(outputWrite)
  return (choice, readAll(outputRead))
}

/// Writes every byte, however many calls it takes.
private func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
  var offset = 0
  while offset < bytes.count {
    let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
    if written < 0 && errno == EINTR { continue }
    guard written > 0 else { return false }
    offset += written
  }
  return true
}

private let hideCursor = "\u{1B}[?25l"
private let showCursor = "\u{1B}[?25h"

/// Presents `alert` in a pseudo-terminal 40 columns wide while a simulated user plays `steps`
/// (after the alert first appears); checks the terminal is restored afterwards.
private func presentInteractively(
  _ alert: TerminalAlert,
  presenter configure: (inout Terminal) -> Void = { _ in },
  steps: [TerminalUser.Step],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> (choice: TerminalAnswer, output: String) {
  let terminal = try PseudoTerminal(columns: 40, rows: 24)
  defer { terminal.close() }
  let before = terminal.attributes()
  var presenter = terminal.makeTerminal()
  configure(&presenter)
  #expect(presenter.isInteractive, sourceLocation: sourceLocation)
  let run = try TerminalUser.run(terminal, steps: [.waitFor(hideCursor)] + steps) {
    try presenter.present(alert)
  }
  #expect(run.failures.isEmpty, "\(run.failures)", sourceLocation: sourceLocation)
  #expect(terminal.attributes().modeFlags == before.modeFlags, sourceLocation: sourceLocation)
  #expect(run.output.hasSuffix(showCursor), sourceLocation: sourceLocation)
  return (run.result, run.output)
}

extension SerializedTerminalTests {
  @Suite("Terminal, plain text")
  struct PlainPresenterTests {
    @Test("A number chooses the button shown with it")
    func number() throws {
      let (choice, output) = try presentPlainly(Fixtures.deleteNotes, input: "2\n")
      #expect(choice == .button(1))
      #expect(
        output == """
          Delete 3 notes?
          The 3 selected notes will be removed from this device and from every device
          signed in to your account. This cannot be undone.
            1) Delete (destructive)
            2) Cancel (cancel)
          Your choice [1-2]: 2

          """)
    }

    @Test("A title chooses its button, case-insensitively")
    func title() throws {
      #expect(try presentPlainly(Fixtures.deleteNotes, input: "  DELETE \r\n").choice == .button(0))
      #expect(try presentPlainly(Fixtures.threeButtons, input: "save\n").choice == .button(1))
    }

    @Test("A wrong answer gets a clear message and the prompt again")
    func reprompts() throws {
      let (choice, output) = try presentPlainly(Fixtures.deleteNotes, input: "yes\n\n3\ncancel\n")
      #expect(choice == .button(1))
      let message = "Please answer with a number from 1 to 2 or one of: Delete, Cancel.\n"
      #expect(
        output.hasSuffix(
          "Your choice [1-2]: yes\n" + message + "Your choice [1-2]: \n" + message
            + "Your choice [1-2]: 3\n" + message + "Your choice [1-2]: cancel\n"))
    }

    @Test("End of input chooses the cancel button")
    func endOfInputCancels() throws {
      #expect(try presentPlainly(Fixtures.deleteNotes, input: "").choice == .button(1))
      #expect(try presentPlainly(Fixtures.deleteNotes, input: "nope\n").choice == .button(1))
    }

    @Test("End of input dismisses an alert without a cancel button")
    func endOfInputDismisses() throws {
      let alert = TerminalAlert(
        title: "Retry?", buttons: [TerminalButton("Retry"), TerminalButton("Quit")])
      #expect(try presentPlainly(alert, input: "").choice == .dismissed)
    }

    @Test("A last line without a line break still counts")
    func unterminatedLine() throws {
      #expect(try presentPlainly(Fixtures.deleteNotes, input: "1").choice == .button(0))
    }

    @Test("An overlong line is rejected without harm, and the next line is read")
    func overlongLine() throws {
      let input = String(repeating: "x", count: 20_000) + "\n1\n"
      #expect(try presentPlainly(Fixtures.deleteNotes, input: input).choice == .button(0))
    }

    @Test("An over-long answer is refused with a message, whatever it starts with")
    func overlongAnswerIsRefused() throws {
      let input = "Delete" + String(repeating: " ", count: 5_000) + "X\n2\n"
      let (choice, output) = try presentPlainly(Fixtures.deleteNotes, input: input)
      #expect(choice == .button(1))
      #expect(
        output.hasSuffix(
          "Your choice [1-2]: \nThat answer is 5007 bytes long; an answer has at most 4096. "
            + "Please answer with a number from 1 to 2 or one of: Delete, Cancel.\n"
            + "Your choice [1-2]: 2\n"))
    }

    @Test("A ten-megabyte line is read in blocks, refused, and the next line answers")
    func tenMegabyteLine() throws {
      let (inputRead, inputWrite) = try makePipe()
      let (outputRead, outputWrite) = try makePipe()
      defer { for descriptor in [inputRead, outputRead] { close(descriptor) } }
      let writer = startThread {
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<10 {
          _ = block.withUnsafeBytes { writeAll(inputWrite, $0) }
        }
        _ = Array("\n1\n".utf8).withUnsafeBytes { writeAll(inputWrite, $0) }
        close(inputWrite)
      }
      let presenter = Terminal(input: inputRead, output: outputWrite)
      #expect(try presenter.present(Fixtures.deleteNotes) == .button(0))
      _ = writer.map { pthread_join($0, nil) }
      close(outputWrite)
      #expect(readAll(outputRead).contains("That answer is 10485760 bytes long"))
    }

    @Test("An answer typed on a terminal is not echoed again when output is piped")
    func terminalInputIsNotEchoedTwice() throws {
      // `milieu-demo | cat`: the terminal echoes the answer, then the presenter echoed it again.
      let terminal = try PseudoTerminal(columns: 80, rows: 24)
      defer { terminal.close() }
      let (outputRead, outputWrite) = try makePipe()
      defer { close(outputRead) }
      let presenter = Terminal(input: terminal.terminal, output: outputWrite)
      #expect(!presenter.isInteractive)
      _ = Array("2\n".utf8).withUnsafeBytes {
        write(terminal.controller, $0.baseAddress, $0.count)
      }
      #expect(try presenter.present(Fixtures.deleteNotes) == .button(1))
      close(outputWrite)
      #expect(readAll(outputRead).hasSuffix("  2) Cancel (cancel)\nYour choice [1-2]: "))
    }

    @Test("With TERM=dumb a terminal is asked in plain text, without cursor or clear escapes")
    func dumbTerminal() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        setenv("TERM", "dumb", 1)
        let terminal = try PseudoTerminal(columns: 80, rows: 24)
        let presenter = Terminal(input: terminal.terminal, output: terminal.terminal)
        let run = try TerminalUser.run(
          terminal, steps: [.waitFor("Your choice [1-2]: "), .type(Array("2\n".utf8))]
        ) { try presenter.present(Fixtures.deleteNotes) }
        _ = Array(run.output.utf8).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        exit(!presenter.isInteractive && run.failures.isEmpty && run.result == .button(1) ? 0 : 1)
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(!output.contains("\u{1B}"))
      #expect(output.contains("  2) Cancel (cancel)\r\nYour choice [1-2]: "))
    }

    @Test("Asked in plain text on a terminal, a secure field's line is not echoed")
    func secureLineIsNotEchoed() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        setenv("TERM", "dumb", 1)
        let terminal = try PseudoTerminal(columns: 80, rows: 24)
        let presenter = Terminal(input: terminal.terminal, output: terminal.terminal)
        let alert = Fixtures.withFields(
          TerminalAlert(title: "Sign in", buttons: [TerminalButton("Sign In")]), ["Password"],
          isSecure: true)
        // Typed only once the prompt is up: a terminal echoes input as it arrives.
        let run = try TerminalUser.run(
          terminal,
          steps: [
            .waitFor("Password (not shown): "), .type(Array("hunter2\n".utf8)),
            .waitFor("Your choice [1]: "), .type(Array("1\n".utf8)),
          ]
        ) { try presenter.reply(to: alert, cancellation: nil) }
        _ = Array(run.output.utf8).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        let reply = run.result
        exit(
          run.failures.isEmpty && reply.answer == .button(0) && reply.texts == ["hunter2"] ? 0 : 1)
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output.contains("Password (not shown): \r\nYour choice [1]: "))
      #expect(!output.contains("hunter2"))
    }

    @Test("Only one line is consumed per alert, so answers can be queued")
    func queuedAnswers() throws {
      let (inputRead, inputWrite) = try makePipe()
      let (outputRead, outputWrite) = try makePipe()
      defer { for descriptor in [inputRead, outputRead, outputWrite] { close(descriptor) } }
      _ = Array("1\n2\n".utf8).withUnsafeBytes { write(inputWrite, $0.baseAddress, $0.count) }
      close(inputWrite)
      let presenter = Terminal(input: inputRead, output: outputWrite)
      #expect(try presenter.present(Fixtures.deleteNotes) == .button(0))
      #expect(try presenter.present(Fixtures.deleteNotes) == .button(1))
    }

    @Test("An alert without buttons is dismissed by any line")
    func noButtons() throws {
      let (choice, output) = try presentPlainly(
        TerminalAlert(title: "Done", buttons: []), input: "\n")
      #expect(choice == .dismissed)
      #expect(output == "Done\nPress Enter to continue: \n")
    }

    @Test("Hostile titles are neutralised in plain output")
    func hostileText() throws {
      let alert = TerminalAlert(
        title: "\u{1B}]0;pwned\u{07}Title", message: "\u{9B}2J",
        buttons: [TerminalButton("\u{1B}[8mOK")])
      let output = try presentPlainly(alert, input: "1\n").output
      #expect(!output.unicodeScalars.contains { $0 != "\n" && TextSanitizer.needsNeutralising($0) })
      #expect(output.hasPrefix("^[]0;pwned^GTitle\n<U+009B>2J\n  1) ^[[8mOK\n"))
    }

    @Test("A toast is one line, without colour on a pipe")
    func toast() throws {
      let (outputRead, outputWrite) = try makePipe()
      defer { _ = close(outputRead) }
      try Terminal(output: outputWrite).show(TerminalToast("Saved", style: .success))
      close(outputWrite)
      #expect(readAll(outputRead) == "✔ Saved\n")
    }

    @Test("Writing to a closed descriptor is a TerminalError")
    func writeError() throws {
      let presenter = Terminal(input: -1, output: -1)
      #expect(throws: TerminalError(operation: "write", code: EBADF)) {
        try presenter.present(Fixtures.deleteNotes)
      }
    }
  }

  @Suite("Terminal, interactive")
  struct InteractivePresenterTests {
    @Test("The box is drawn, focus starts on Cancel, Tab moves it and Enter chooses")
    func tabThenEnter() throws {
      let (choice, output) = try presentInteractively(
        Fixtures.deleteNotes,
        steps: [.waitFor("[ 2 Cancel ]"), .type([0x09]), .waitFor("[ 1 Delete ]"), .type([0x0D])])
      #expect(choice == .button(0))
      #expect(output.hasPrefix(hideCursor + "╭──────────────────────────────────────╮\r"))
    }

    @Test(
      "Arrow keys in both encodings move the focus",
      arguments: ["\u{1B}[D", "\u{1B}OD", "\u{1B}[1;5D", "\u{1B}[Z"])
    func arrows(sequence: String) throws {
      let choice = try presentInteractively(
        Fixtures.deleteNotes,
        steps: [.type(Array(sequence.utf8)), .waitFor("[ 1 Delete ]"), .type([0x0D])]
      ).choice
      #expect(choice == .button(0))
    }

    @Test("A digit chooses at once")
    func digit() throws {
      #expect(
        try presentInteractively(Fixtures.threeButtons, steps: [.type(Array("2".utf8))]).choice
          == .button(2))
    }

    @Test("Esc chooses the cancel button once the escape timeout passes")
    func escape() throws {
      #expect(
        try presentInteractively(Fixtures.deleteNotes, steps: [.type([0x1B])]).choice == .button(1))
    }

    @Test("Esc dismisses an alert without a cancel button")
    func escapeDismisses() throws {
      let alert = TerminalAlert(
        title: "Retry?", buttons: [TerminalButton("Retry"), TerminalButton("Quit")])
      #expect(try presentInteractively(alert, steps: [.type([0x1B])]).choice == .dismissed)
    }

    @Test("With only a destructive button, a bare Enter chooses nothing")
    func enterNeverErases() throws {
      let alert = TerminalAlert(
        title: "Erase the disk?", buttons: [TerminalButton("Erase", role: .destructive)])
      let run = try presentInteractively(
        alert, steps: [.type([0x0D]), .type([0x0D]), .type([0x1B])])
      #expect(run.choice == .dismissed)
      #expect(!run.output.contains("[ 1 Erase ]"))
      // The digit, or moving the focus first, still chooses it.
      #expect(try presentInteractively(alert, steps: [.type(Array("1".utf8))]).choice == .button(0))
      let moved = try presentInteractively(
        alert, steps: [.type(Array("\t".utf8)), .waitFor("[ 1 Erase ]"), .type([0x0D])])
      #expect(moved.choice == .button(0))
    }

    @Test("A box taller than the window is cut to it, so a redraw leaves no copy behind")
    func tallBox() throws {
      let terminal = try PseudoTerminal(columns: 40, rows: 8)
      defer { terminal.close() }
      let alert = TerminalAlert(
        title: "Read all of this?",
        message: (1...30).map { "Line \($0)." }.joined(separator: "\n"),
        buttons: [TerminalButton("Yes"), TerminalButton("No", role: .cancel)])
      let presenter = Terminal(
        input: terminal.terminal, output: terminal.terminal, colorPolicy: .never)
      let run = try TerminalUser.run(
        terminal,
        steps: [
          .waitFor("[ 1 Yes ]"), .type(Array("\t".utf8)), .waitFor("[ 2 No ]"), .type([0x0D]),
        ]
      ) { try presenter.present(alert) }
      #expect(run.failures.isEmpty, "\(run.failures)")
      #expect(run.result == .button(1))
      let ups = run.output.split(separator: "\u{1B}[").compactMap { part -> Int? in
        guard let end = part.firstIndex(of: "A") else { return nil }
        return Int(part[..<end])
      }
      #expect(!ups.isEmpty)
      #expect(ups.allSatisfy { $0 <= 7 }, "\(ups)")
      #expect(run.output.contains("│ Line 1.") && run.output.contains("│ …"))
      #expect(!run.output.contains("Line 30."))
    }

    @Test("An escape sequence typed in pieces is still one key")
    func splitSequence() throws {
      let choice = try presentInteractively(
        Fixtures.deleteNotes, presenter: { $0.escapeTimeout = 2_000 },
        steps: [
          .type([0x1B]), .type(Array("[C".utf8)), .waitFor("[ 1 Delete ]"), .type([0x0D]),
        ]
      ).choice
      #expect(choice == .button(0))
    }

    @Test("Ctrl-C interrupts and restores the terminal")
    func controlC() throws {
      #expect(
        try presentInteractively(Fixtures.deleteNotes, steps: [.type([0x03])]).choice
          == .interrupted)
    }

    @Test("Ctrl-D chooses the cancel button")
    func controlD() throws {
      #expect(
        try presentInteractively(Fixtures.deleteNotes, steps: [.type([0x04])]).choice == .button(1))
    }

    @Test("Garbage input is ignored and the next key still works")
    func garbage() throws {
      var bytes =
        Array("\u{1B}[".utf8) + [UInt8](repeating: 0x3B, count: 500)
        + Array("x\u{1B}]0;t\u{07}".utf8)
      bytes +=
        [0xFF, 0xFE, 0xC3, 0x28, 0x7F, 0x00, 0x80] + Array("abc日本".utf8) + [0x1B, 0x5B, 0x09]
      bytes += Array("1".utf8)
      #expect(
        try presentInteractively(Fixtures.deleteNotes, steps: [.type(bytes)]).choice == .button(0))
    }

    @Test("Colour shows the focused button in reverse video")
    func color() throws {
      let (choice, output) = try presentInteractively(
        Fixtures.deleteNotes, presenter: { $0.colorPolicy = .always },
        steps: [.waitFor("\u{1B}[1;7m 2 Cancel \u{1B}[0m"), .type([0x0D])])
      #expect(choice == .button(1))
      #expect(output.contains("\u{1B}[31m 1 Delete \u{1B}[0m"))
    }

    @Test("A resize redraws the box at the new width")
    func resize() throws {
      let wideBorder = "╭" + String(repeating: "─", count: 58) + "╮"
      let (choice, output) = try presentInteractively(
        Fixtures.deleteNotes,
        steps: [.resize(columns: 60), .waitFor(wideBorder), .type(Array("1".utf8))])
      #expect(choice == .button(0))
      // The redraw first goes back up over the old 10-line box and erases it.
      #expect(output.contains("\r\u{1B}[9A\u{1B}[J" + wideBorder))
    }

    @Test("A hung-up terminal counts as end of input and chooses the cancel button")
    func hangUp() throws {
      let terminal = try PseudoTerminal(columns: 40, rows: 24)
      defer { terminal.close() }
      let presenter = Terminal(
        input: terminal.terminal, output: terminal.terminal, colorPolicy: .never)
      let run = try TerminalUser.run(terminal, steps: [.waitFor("2 Cancel"), .hangUp]) {
        try presenter.present(Fixtures.deleteNotes)
      }
      #expect(run.result == .button(1))
    }
  }

  @Suite("Terminal, async")
  struct AsyncPresenterTests {
    @Test("Awaiting an alert answers like the synchronous call")
    func answers() async throws {
      let (inputRead, inputWrite) = try makePipe()
      let (outputRead, outputWrite) = try makePipe()
      defer { for descriptor in [inputRead, outputRead, outputWrite] { close(descriptor) } }
      _ = Array("2\n".utf8).withUnsafeBytes { write(inputWrite, $0.baseAddress, $0.count) }
      close(inputWrite)
      let presenter = Terminal(input: inputRead, output: outputWrite)
      #expect(try await presenter.present(Fixtures.deleteNotes) == .button(1))
    }

    @Test("A task cancelled before presenting returns at once and draws nothing")
    func cancelledBefore() async throws {
      let (outputRead, outputWrite) = try makePipe()
      defer { close(outputRead) }
      let presenter = Terminal(input: -1, output: outputWrite)
      let task = Task {
        while !Task.isCancelled { await Task.yield() }
        return try await presenter.present(Fixtures.deleteNotes)
      }
      task.cancel()
      #expect(try await task.value == .cancelled)
      close(outputWrite)
      #expect(readAll(outputRead).isEmpty)
    }

    @Test("Cancelling the task takes down an alert waiting for a line")
    func cancelPlain() async throws {
      let (inputRead, inputWrite) = try makePipe()
      let (outputRead, outputWrite) = try makePipe()
      defer {
        for descriptor in [inputRead, inputWrite, outputRead, outputWrite] { close(descriptor) }
      }
      let presenter = Terminal(input: inputRead, output: outputWrite)
      let task = Task { try await presenter.present(Fixtures.deleteNotes) }
      #expect(waitForOutput(outputRead, containing: "Your choice [1-2]: "))
      task.cancel()
      #expect(try await task.value == .cancelled)
    }

    @Test("Cancelling the task takes down an interactive alert and restores the terminal")
    func cancelInteractive() async throws {
      let terminal = try PseudoTerminal(columns: 40, rows: 24)
      defer { terminal.close() }
      let before = terminal.attributes()
      let presenter = Terminal(
        input: terminal.terminal, output: terminal.terminal, colorPolicy: .never)
      let task = Task { try await presenter.present(Fixtures.deleteNotes) }
      #expect(waitForOutput(terminal.controller, containing: hideCursor))
      task.cancel()
      #expect(try await task.value == .cancelled)
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }
  }

  @Suite("Terminal, Ctrl-C")
  struct InterruptTests {
    @Test("By default Ctrl-C restores the terminal, then raises SIGINT")
    func raisesSignal() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        let terminal = try PseudoTerminal(columns: 40, rows: 24)
        interruptedTerminal = terminal.terminal
        signal(SIGINT) { _ in
          var attributes = termios()
          _ = tcgetattr(interruptedTerminal, &attributes)
          let restored = attributes.c_lflag & tcflag_t(ICANON) != 0
          let report: StaticString = restored ? "restored before SIGINT\n" : "raw at SIGINT\n"
          report.withUTF8Buffer { _ = write(1, $0.baseAddress, $0.count) }
          _exit(0)
        }
        let presenter = Terminal(input: terminal.terminal, output: terminal.terminal)
        _ = try TerminalUser.run(terminal, steps: [.waitFor("\u{1B}[?25l"), .type([0x03])]) {
          try presenter.present(Fixtures.deleteNotes)
        }
        // SIGINT goes to the process, on whichever thread takes it; its handler ends the
        // process. Should it never come, the alarm ends the process and fails the test.
        alarm(30)
        while true { pause() }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "restored before SIGINT\n")
    }
  }
}

nonisolated(unsafe) private var interruptedTerminal: Int32 = -1
