#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Switches a terminal into raw mode for a scope and always switches it back.
///
/// In raw mode the terminal delivers every key press at once, as bytes, without echoing it and
/// without turning Ctrl-C into a signal: Ctrl-C arrives as byte 0x03, which ``KeyDecoder`` turns
/// into ``Key/interrupt``. Output processing is left on, so `\n` still starts a new line.
///
/// The saved attributes are put back, and the reset sequence `ESC [ 0 m ESC [ ? 25 h` (attributes
/// off, cursor shown) is written to the output, after `ESC [ ? 2004 l` (pastes no longer
/// bracketed) while an alert with text fields is up:
///
/// - when the scope returns, and when it throws;
/// - when SIGINT, SIGTERM or SIGHUP arrives — the handler restores the terminal, puts back the
///   signal's previous action and raises the signal again, so the program ends (or its own
///   handler runs) exactly as it would have without raw mode. A signal the program ignores is left
///   ignored;
/// - when a fatal signal arrives — SIGILL, SIGTRAP, SIGSEGV, SIGBUS or SIGABRT, as a runtime trap
///   (an index out of range, in any thread) or a crash raises — the same way: restored, then the
///   signal takes its effect (the crash report, the core dump) as it would have;
/// - when the process calls `exit` while in raw mode.
///
/// Scopes nest: an inner scope joins the raw mode of the outer one, and only the outermost one
/// restores. Raw mode is process-wide state: use one terminal at a time.
enum TerminalMode {
  /// Whether `fileDescriptor` refers to a terminal.
  ///
  /// - Parameter fileDescriptor: An open file descriptor.
  /// - Returns: `true` for a terminal, `false` for a pipe, file, socket or closed descriptor.
  static func isTerminal(_ fileDescriptor: Int32) -> Bool {
    isatty(fileDescriptor) == 1
  }

  /// Runs `body` with the terminal `input` in raw mode, restoring it however `body` ends.
  ///
  /// - Parameters:
  ///   - input: The terminal to put in raw mode, usually standard input (0).
  ///   - output: Where to write the reset sequence when restoring, usually standard output (1);
  ///     `nil` writes nothing.
  ///   - body: The work to do in raw mode.
  /// - Returns: What `body` returns.
  /// - Throws: ``TerminalError`` if `input` is not a terminal or cannot be configured, in which
  ///   case `body` does not run; otherwise whatever `body` throws, after restoring.
  static func withRawMode<Result, Failure: Error>(
    input: Int32 = 0,
    output: Int32? = 1,
    _ body: () throws(Failure) -> Result
  ) throws -> Result {
    try RawModeState.enter(input: input, output: output ?? -1)
    defer { RawModeState.leave() }
    return try body()
  }

  /// Runs the asynchronous `body` with the terminal `input` in raw mode, restoring it however
  /// `body` ends.
  ///
  /// Raw mode is process-wide: other tasks reading the same terminal meanwhile see raw input too.
  ///
  /// - Parameters:
  ///   - input: The terminal to put in raw mode, usually standard input (0).
  ///   - output: Where to write the reset sequence when restoring; `nil` writes nothing.
  ///   - isolation: The actor `body` runs on; inferred from the caller.
  ///   - body: The work to do in raw mode.
  /// - Returns: What `body` returns.
  /// - Throws: ``TerminalError`` if `input` cannot be put in raw mode, in which case `body` does
  ///   not run; otherwise whatever `body` throws, after restoring.
  static func withRawMode<Result, Failure: Error>(
    input: Int32 = 0,
    output: Int32? = 1,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(Failure) -> Result
  ) async throws -> Result {
    try RawModeState.enter(input: input, output: output ?? -1)
    defer { RawModeState.leave() }
    return try await body()
  }

  /// The attributes raw mode uses, derived from a terminal's current ones.
  ///
  /// Turns off echo, canonical (line-by-line) input, signal keys (`ISIG`), extended input
  /// processing, CR-to-NL translation, flow control, break-to-signal, parity checking and
  /// stripping; sets 8-bit characters; makes `read` return as soon as one byte is available.
  /// Output processing is kept.
  ///
  /// - Parameter attributes: The terminal's attributes as `tcgetattr` returned them.
  /// - Returns: The attributes to apply with `tcsetattr`.
  static func rawAttributes(from attributes: termios) -> termios {
    var raw = attributes
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { characters in
      characters[Int(VMIN)] = 1
      characters[Int(VTIME)] = 0
    }
    return raw
  }
}
