/// Presents alerts and toasts in the terminal and reads the user's choice.
///
/// ``present(_:)`` picks one of two ways to ask, each time it is called:
///
/// - **Interactive**, when standard input and output are both terminals (and `TERM` is not
///   `dumb`): the alert is drawn as
///   a box (see ``AlertRenderer``) with the terminal in raw mode. ←/→,
///   Tab/Shift-Tab and ↑/↓ move the focus, Enter chooses the focused button, a digit chooses
///   that button, Esc and Ctrl-D choose the cancel button (or dismiss), Ctrl-C interrupts. Text
///   fields, in an alert made from `AlertData`, are typed into first (see
///   <doc:PresentingAlertsInATerminal>). The
///   box is redrawn at the new width when the window is resized, and is never taller than the
///   window: a long message is cut, a line "…" standing for the rest. The terminal is restored on
///   every path, signals included.
/// - **Plain**, otherwise: the alert is printed as numbered text, then lines are read until one
///   is a button's number or title; a wrong answer prints what would be
///   right and prompts again. The answer is written after the prompt, so that the output reads
///   as a transcript, unless the input is a terminal that echoed it already. End of input chooses the cancel button, or dismisses.
///
/// The synchronous ``present(_:)`` blocks the calling thread until the user answers. From async
/// code, `await` the asynchronous overload ``present(_:isolation:)``: it waits on a thread of its
/// own, never on the shared concurrency pool, and cancelling the task takes the alert down.
/// Present one alert at a time.
///
/// ```swift
/// let presenter = Terminal()
/// let alert = TerminalAlert(
///   title: "Delete 3 notes?",
///   buttons: [TerminalButton("Delete", role: .destructive), TerminalButton("Cancel", role: .cancel)]
/// )
/// if case .button(0) = try presenter.present(alert) { deleteNotes() }
/// try presenter.show(TerminalToast("Deleted 3 notes", style: .success))
/// ```
public struct Terminal: Sendable {
  /// What Ctrl-C does while an alert is on screen.
  public enum InterruptBehavior: Hashable, Sendable {
    /// Restore the terminal, then raise SIGINT, as Ctrl-C would outside raw mode: the program
    /// ends unless it handles or ignores SIGINT, in which case ``TerminalAnswer/interrupted`` is
    /// returned.
    case raiseSignal
    /// Restore the terminal and return ``TerminalAnswer/interrupted``.
    case returnInterrupted
  }

  /// The descriptor keys and lines are read from.
  ///
  /// Interactive presentation needs it to be a terminal; otherwise lines are read from it.
  public var input: Int32

  /// The descriptor alerts and toasts are written to.
  ///
  /// Interactive presentation needs it to be a terminal, and colour is only automatic on one.
  public var output: Int32

  /// When to use colour, bold and reverse video.
  ///
  /// Plain presentation never uses any.
  public var colorPolicy: ColorPolicy

  /// What Ctrl-C does while an alert is on screen.
  public var interruptBehavior: InterruptBehavior

  /// The renderer that draws alerts, box and plain text alike.
  public var renderer: AlertRenderer

  /// How long, in milliseconds, a lone ESC waits for the rest of an escape sequence before it
  /// counts as Esc.
  ///
  /// Longer is safer over slow connections, shorter makes Esc feel quicker.
  public var escapeTimeout: Int32

  /// Creates a presenter.
  ///
  /// - Parameters:
  ///   - input: The descriptor to read from; standard input (0) unless given.
  ///   - output: The descriptor to write to; standard output (1) unless given.
  ///   - colorPolicy: When to use colour; ``ColorPolicy/automatic`` unless given.
  ///   - interruptBehavior: What Ctrl-C does; ``InterruptBehavior/raiseSignal`` unless given.
  ///   - renderer: The renderer; a default ``AlertRenderer`` unless given.
  ///   - escapeTimeout: Milliseconds before a lone ESC counts as Esc; 50 unless given.
  public init(
    input: Int32 = 0,
    output: Int32 = 1,
    colorPolicy: ColorPolicy = .automatic,
    interruptBehavior: InterruptBehavior = .raiseSignal,
    renderer: AlertRenderer = AlertRenderer(),
    escapeTimeout: Int32 = 50
  ) {
    self.input = input
    self.output = output
    self.colorPolicy = colorPolicy
    self.interruptBehavior = interruptBehavior
    self.renderer = renderer
    self.escapeTimeout = escapeTimeout
  }

  /// Whether ``present(_:)`` would ask interactively now: input and output are both terminals,
  /// and `TERM` is not `dumb`.
  ///
  /// A dumb terminal cannot move the cursor or clear the screen, which drawing a box needs, so
  /// alerts are asked in plain text there.
  public var isInteractive: Bool {
    TerminalMode.isTerminal(input) && TerminalMode.isTerminal(output)
      && environmentValue("TERM") != "dumb"
  }

  /// Shows `alert` and waits for the user's choice.
  ///
  /// ```swift
  /// switch try presenter.present(alert) {
  /// case .button(let index): handle(alert.buttons[index])
  /// case .dismissed, .interrupted, .cancelled: break
  /// }
  /// ```
  ///
  /// - Parameter alert: The alert to show.
  /// - Returns: The button chosen, or how the alert ended without one.
  /// - Throws: ``TerminalError`` if reading or writing fails; the terminal is restored first.
  public func present(_ alert: TerminalAlert) throws(TerminalError) -> TerminalAnswer {
    try present(alert, cancellation: nil)
  }

  /// Shows `alert` and waits for the user's choice, or for `cancellation` to become readable.
  func present(
    _ alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> TerminalAnswer {
    try reply(to: alert, cancellation: cancellation).answer
  }

  /// An answer to an alert, and the text of each of its fields as the user left it.
  typealias Reply = (answer: TerminalAnswer, texts: [String])

  /// Shows `alert`, lets the user fill in its text fields, and waits for the user's choice, or
  /// for `cancellation` to become readable.
  func reply(
    to alert: TerminalAlert, cancellation: Int32?
  ) throws(TerminalError) -> Reply {
    isInteractive
      ? try presentInteractively(alert, cancellation: cancellation)
      : try presentPlainly(alert, cancellation: cancellation)
  }

  /// Writes `toast` as one line, cut to the terminal's width.
  ///
  /// ```swift
  /// try presenter.show(TerminalToast("Saved", style: .success))
  /// ```
  ///
  /// - Parameter toast: The toast to show.
  /// - Throws: ``TerminalError`` if writing fails.
  public func show(_ toast: TerminalToast) throws(TerminalError) {
    let line = ToastRenderer.render(
      toast,
      width: TerminalSize.currentColumns(of: [output, input]),
      color: colorPolicy.allowsColor(forOutput: output)
    )
    try TerminalScreen.forOutput(output).writeLine(line)
  }
}

extension Terminal: CustomStringConvertible {
  /// The descriptors and colour policy, as environment dumps show the presenter.
  public var description: String {
    "Terminal(input: \(input), output: \(output), color: \(colorPolicy))"
  }
}
