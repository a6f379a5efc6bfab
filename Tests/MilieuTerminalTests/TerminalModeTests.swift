import MilieuTestSupport
import Testing

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal an exit test's signal or exit handler inspects; set inside the child process.
nonisolated(unsafe) private var probedTerminal: Int32 = -1

/// Writes "restored" or "raw" to standard output, depending on the probed terminal's mode.
private func reportProbedMode() {
  var attributes = termios()
  _ = tcgetattr(probedTerminal, &attributes)
  let restored = attributes.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO)
  let report: StaticString = restored ? "restored\n" : "raw\n"
  report.withUTF8Buffer { _ = write(1, $0.baseAddress, $0.count) }
}

private func isRaw(_ attributes: termios) -> Bool {
  attributes.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0
}

private struct Boom: Error {}

extension SerializedTerminalTests {
  @Suite("TerminalMode")
  struct TerminalModeTests {
    @Test(
      "Raw attributes turn off echo, canonical input and signal keys, and keep output processing")
    func rawAttributes() {
      var cooked = termios()
      cooked.c_lflag = tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
      cooked.c_iflag = tcflag_t(ICRNL | IXON)
      cooked.c_oflag = tcflag_t(OPOST | ONLCR)
      let raw = TerminalMode.rawAttributes(from: cooked)
      #expect(isRaw(raw))
      #expect(raw.c_lflag & tcflag_t(IEXTEN) == 0)
      #expect(raw.c_iflag & tcflag_t(ICRNL | IXON) == 0)
      #expect(raw.c_oflag == cooked.c_oflag)
      withUnsafeBytes(of: raw.c_cc) { characters in
        #expect(characters[Int(VMIN)] == 1)
        #expect(characters[Int(VTIME)] == 0)
      }
    }

    @Test("The terminal is raw inside the scope and restored when it returns")
    func restoresOnReturn() throws {
      let terminal = try PseudoTerminal()
      defer { terminal.close() }
      let before = terminal.attributes()
      #expect(!isRaw(before))
      let inside = try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
        terminal.attributes()
      }
      #expect(isRaw(inside))
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("The terminal is restored when the scope throws, and the error passes through")
    func restoresOnThrow() throws {
      let terminal = try PseudoTerminal()
      defer { terminal.close() }
      let before = terminal.attributes()
      #expect(throws: Boom.self) {
        try TerminalMode.withRawMode(input: terminal.terminal, output: nil) { () throws(Boom) in
          throw Boom()
        }
      }
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("The async scope restores too")
    func asyncScope() async throws {
      let terminal = try PseudoTerminal()
      defer { terminal.close() }
      let before = terminal.attributes()
      let inside = try await TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
        await Task.yield()
        return terminal.attributes()
      }
      #expect(isRaw(inside))
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("Nested scopes restore only when the outermost ends")
    func nested() throws {
      let terminal = try PseudoTerminal()
      defer { terminal.close() }
      let before = terminal.attributes()
      try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
        try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {}
        #expect(isRaw(terminal.attributes()))
      }
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("A descriptor that is not a terminal is an error and the body never runs")
    func notATerminal() throws {
      let (read, write) = try makePipe()
      defer {
        close(read)
        close(write)
      }
      var ran = false
      #expect(throws: TerminalError(operation: "tcgetattr", code: ENOTTY)) {
        try TerminalMode.withRawMode(input: read, output: nil) { ran = true }
      }
      #expect(!ran)
      #expect("\(TerminalError(operation: "tcgetattr", code: ENOTTY))".contains("not a terminal"))
    }

    @Test("An uncommon errno is explained in the system's words")
    func uncommonErrno() {
      #expect(
        "\(TerminalError(operation: "read", code: EISDIR))"
          == "read failed: is a directory (errno 21)")
      #expect("\(TerminalError(operation: "read", code: 9_999))" == "read failed: (errno 9999)")
    }

    @Test("SIGTERM in raw mode writes the reset sequence, then ends the process by SIGTERM")
    func sigtermRestoresThenTerminates() async {
      let result = await #expect(
        processExitsWith: .signal(SIGTERM), observing: [\.standardOutputContent]
      ) {
        let terminal = try PseudoTerminal()
        try TerminalMode.withRawMode(input: terminal.terminal, output: 1) {
          _ = kill(getpid(), SIGTERM)
          while true { pause() }
        }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "\u{1B}[0m\u{1B}[?25h\r\n")
    }

    @Test("A signal while pastes are bracketed also asks the terminal to stop bracketing them")
    func signalEndsBracketedPastes() async {
      let result = await #expect(
        processExitsWith: .signal(SIGTERM), observing: [\.standardOutputContent]
      ) {
        let terminal = try PseudoTerminal()
        try TerminalMode.withRawMode(input: terminal.terminal, output: 1) {
          RawModeState.isPasteBracketed.store(true, ordering: .releasing)
          _ = kill(getpid(), SIGTERM)
          while true { pause() }
        }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\r\n")
    }

    @Test("SIGINT in raw mode restores the terminal, then ends the process by SIGINT")
    func sigintRestoresThenTerminates() async {
      let result = await #expect(
        processExitsWith: .signal(SIGINT), observing: [\.standardOutputContent]
      ) {
        let terminal = try PseudoTerminal()
        try TerminalMode.withRawMode(input: terminal.terminal, output: 1) {
          _ = kill(getpid(), SIGINT)
          while true { pause() }
        }
      }
      #expect(result?.standardOutputContent.isEmpty == false)
    }

    @Test("Each fatal signal restores the terminal, then reaches the program's handler")
    func fatalSignalsRestoreThenChain() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        let terminal = try PseudoTerminal()
        probedTerminal = terminal.terminal
        // The test runner starts exit tests with SIGABRT blocked, as `abort` would not.
        var fatalSignals = sigset_t()
        sigemptyset(&fatalSignals)
        for fatal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT] { sigaddset(&fatalSignals, fatal) }
        pthread_sigmask(SIG_UNBLOCK, &fatalSignals, nil)
        for fatal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT] {
          signal(fatal) { _ in reportProbedMode() }
          try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
            _ = raise(fatal)
          }
        }
        exit(0)
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == String(repeating: "restored\n", count: 5))
    }

    @Test("A runtime trap in another thread restores the terminal, then ends the process")
    func trapInAThreadRestores() async {
      let result = await #expect(
        processExitsWith: .signal(SIGILL), observing: [\.standardOutputContent]
      ) {
        let terminal = try PseudoTerminal()
        try TerminalMode.withRawMode(input: terminal.terminal, output: 1) {
          _ = startThread {
            let empty: [Int] = []
            _ = empty[Int(getpid()) & 1 | 1]  // an index out of range: a trap
          }
          while true { pause() }
        }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output.hasPrefix("\u{1B}[0m\u{1B}[?25h\r\n"))
    }

    @Test("The program's own signal handler runs after the terminal is restored")
    func chainsToProgramHandler() async {
      let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
        let terminal = try PseudoTerminal()
        probedTerminal = terminal.terminal
        signal(SIGTERM) { _ in
          reportProbedMode()
          _exit(0)
        }
        try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
          _ = kill(getpid(), SIGTERM)
          while true { pause() }
        }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "restored\n")
    }

    @Test("A signal the program ignores stays ignored")
    func ignoredSignalStaysIgnored() async {
      await #expect(processExitsWith: .success) {
        let terminal = try PseudoTerminal()
        signal(SIGTERM, SIG_IGN)
        let stillRaw = try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
          _ = kill(getpid(), SIGTERM)
          return isRaw(terminal.attributes())
        }
        exit(stillRaw ? 0 : 1)
      }
    }

    @Test("Calling exit in raw mode restores the terminal")
    func exitRestores() async {
      let result = await #expect(
        processExitsWith: .exitCode(3), observing: [\.standardOutputContent]
      ) {
        let terminal = try PseudoTerminal()
        probedTerminal = terminal.terminal
        // Exit handlers run in reverse order: this one runs after the terminal's.
        atexit { reportProbedMode() }
        try TerminalMode.withRawMode(input: terminal.terminal, output: nil) {
          exit(3)
        }
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "restored\n")
    }
  }
}
