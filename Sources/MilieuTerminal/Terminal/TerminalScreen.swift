@_spi(MilieuInternal) import Milieu

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Everything written to one output descriptor, in order, so that an alert on screen, toasts and
/// log lines never overwrite one another.
///
/// There is one screen per output descriptor in the process (``forOutput(_:)``). It knows what
/// is on the last lines of the output:
///
/// - a *frame* — the box of an interactive alert, redrawn in place as the focus moves;
/// - a *prompt* — the plain-text question waiting for an answer on the same line;
/// - or nothing in particular.
///
/// ``writeLine(_:)`` puts a line of text above a frame (the frame is erased, the line written,
/// the frame drawn again below it) or after a prompt (on a line of its own, then the prompt
/// again), so a toast that arrives while an alert waits for the user lands in the scrollback
/// and the alert stays whole.
///
/// Every write happens under the screen's lock, so whole writes never interleave.
///
/// Descriptors that refer to the same terminal device — standard output and standard error on
/// one terminal, say — share one screen, so a line written to standard error while a box is up
/// on standard output lands above the box instead of inside it. Each write still goes to the
/// descriptor it was asked for.
struct TerminalScreen: Sendable {
  /// What is on screen, shared by every descriptor of one terminal (or held by one descriptor
  /// that is not a terminal).
  private final class Shared: Sendable {
    let state = Lock(State())
  }

  /// A terminal device, or a descriptor that is not a terminal.
  private enum Target: Hashable {
    case terminal(device: UInt64)
    case descriptor(Int32)
  }

  private static let screens = Lock<[Target: Shared]>([:])

  /// The screen of an output descriptor, made on first use.
  static func forOutput(_ descriptor: Int32) -> TerminalScreen {
    let target = Self.target(of: descriptor)
    let shared = screens.withLock { screens in
      if let shared = screens[target] { return shared }
      let shared = Shared()
      screens[target] = shared
      return shared
    }
    return TerminalScreen(output: descriptor, shared: shared)
  }

  private static func target(of descriptor: Int32) -> Target {
    var status = stat()
    guard isatty(descriptor) == 1, fstat(descriptor, &status) == 0 else {
      return .descriptor(descriptor)
    }
    return .terminal(device: UInt64(status.st_rdev))
  }

  private struct State: Sendable {
    var redrawer = FrameRedrawer()
    /// The frame on screen, or empty.
    var frame: [String] = []
    var frameColumns = TerminalSize.fallbackColumns
    /// The prompt written without a line break, while it waits for an answer.
    var prompt: String?
  }

  let output: Int32
  private let shared: Shared

  /// Runs `body` with the screen's state locked, once what the program wrote through C's output
  /// streams has reached their descriptors.
  ///
  /// `print` writes to standard output's stdio buffer, which holds a pipe's or a file's output
  /// until it is full or the program ends, while the screen writes to descriptors directly:
  /// without the flush, an alert or a toast would overtake lines the program printed before it.
  /// Every output stream is flushed, standard error and streams on the same file included. The
  /// flush comes before the lock, as it can wait for a reader to drain a full pipe.
  private func withState<Result: Sendable>(
    _ body: (inout sending State) throws(TerminalError) -> sending Result
  ) throws(TerminalError) -> sending Result {
    fflush(nil)
    return try shared.state.withLock(body)
  }

  /// Writes `text` as it is.
  func write(_ text: String) throws(TerminalError) {
    try withState { _ throws(TerminalError) in
      try FileDescriptorIO.write(text, to: output)
    }
  }

  /// Draws `lines` as the frame, replacing the frame drawn before, if any.
  ///
  /// - Parameters:
  ///   - lines: The frame; its first line must carry no escape sequences.
  ///   - columns: The terminal's width now.
  /// - Throws: ``TerminalError`` if writing fails.
  func drawFrame(_ lines: [String], columns: Int) throws(TerminalError) {
    try withState { state throws(TerminalError) in
      let text = state.redrawer.replace(with: lines, terminalColumns: columns)
      state.frame = lines
      state.frameColumns = columns
      try FileDescriptorIO.write(text, to: output)
    }
  }

  /// Ends the frame: leaves it on screen and writes `trailer` after it, or erases it first.
  ///
  /// - Parameters:
  ///   - erasing: Whether to take the frame off the screen.
  ///   - trailer: Written after the frame, or where it was.
  /// - Throws: ``TerminalError`` if writing fails; the frame counts as ended anyway.
  func endFrame(erasing: Bool, trailer: String) throws(TerminalError) {
    try withState { state throws(TerminalError) in
      var text = ""
      if erasing, !state.frame.isEmpty {
        text = state.redrawer.replace(with: [], terminalColumns: state.frameColumns)
      }
      state.redrawer = FrameRedrawer()
      state.frame = []
      try FileDescriptorIO.write(text + trailer, to: output)
    }
  }

  /// Writes a prompt and leaves the cursor after it, for an answer on the same line.
  func writePrompt(_ prompt: String) throws(TerminalError) {
    try withState { state throws(TerminalError) in
      try FileDescriptorIO.write(prompt, to: output)
      state.prompt = prompt
    }
  }

  /// Ends the prompt: writes `echo` (what was answered) and a line break after it, or nothing
  /// when `echo` is `nil` (the terminal echoed the answer and its line break itself).
  func endPrompt(echo: String?) throws(TerminalError) {
    try withState { state throws(TerminalError) in
      guard state.prompt != nil else { return }
      state.prompt = nil
      guard let echo else { return }
      try FileDescriptorIO.write(echo + "\n", to: output)
    }
  }

  /// Writes one line of text so that it stays in the scrollback: above the frame or after the
  /// prompt, which are then shown again.
  ///
  /// - Parameter line: One line, without a line break, already safe to show.
  /// - Throws: ``TerminalError`` if writing fails.
  func writeLine(_ line: String) throws(TerminalError) {
    try withState { state throws(TerminalError) in
      var text = ""
      if !state.frame.isEmpty {
        text += state.redrawer.replace(with: [], terminalColumns: state.frameColumns)
        text += line + "\r\n"
        text += state.redrawer.replace(with: state.frame, terminalColumns: state.frameColumns)
      } else if let prompt = state.prompt {
        text += "\n" + line + "\n" + prompt
      } else {
        text += line + "\n"
      }
      try FileDescriptorIO.write(text, to: output)
    }
  }
}
