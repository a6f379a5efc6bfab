import Milieu
import MilieuAlerts

/// Writes lines of text to a terminal without disturbing the alert on screen.
///
/// While an alert is drawn as a box, anything else written to the same output would land in
/// the middle of it. The console writes each line *above* the box instead — the box is erased,
/// the line written, the box drawn again below it — or, while a plain-text alert waits for an
/// answer, on a line of its own after the prompt, which is then repeated. With no alert up, a
/// line is simply written.
///
/// Every line is neutralised first (control characters and escape sequences made visible), so text from anywhere can be logged
/// safely. Write errors are ignored: logging never fails the program.
///
/// ```swift
/// let console = TerminalConsole()
/// console.writeLine("Synced 12 notes.")
/// showAlert(alert) { outcome in
///   console.report(outcome, of: alert)  // Delete 3 notes?: tapped Delete
/// }
/// ```
public struct TerminalConsole: Sendable {
  /// The descriptor the lines are written to.
  public let output: Int32

  /// Creates a console for an output descriptor.
  ///
  /// Consoles, ``TerminalAlertPresenter``s and ``TerminalToastPresenter``s that write to the
  /// same descriptor coordinate with one another, whichever instance they are.
  ///
  /// - Parameter output: The descriptor to write to; standard output (1) unless given.
  public init(output: Int32 = 1) {
    self.output = output
  }

  /// Writes text as one or more lines, above any alert on screen.
  ///
  /// Each line break in `text` starts a new line; control characters are shown neutralised.
  ///
  /// ```swift
  /// console.writeLine("Deleted 3 notes from Work.")
  /// ```
  ///
  /// - Parameter text: The text to write.
  public func writeLine(_ text: String) {
    let screen = TerminalScreen.forOutput(output)
    let lines = TextSanitizer.sanitize(text, mode: .multiline)
      .split(separator: "\n", omittingEmptySubsequences: false)
    for line in lines {
      try? screen.writeLine(String(line))
    }
  }

  /// A reporter that writes each issue through this console, as one neutralised line:
  /// `warning: App/Main.swift:12: <message>`.
  ///
  /// Milieu's default reporter writes issues to standard error as they are, so a diagnostic that
  /// quotes hostile text reaches the terminal whole, and one written while an alert's box is up
  /// lands inside the box. Install this one instead, on the root node, where an app draws alerts
  /// in a terminal: every line is neutralised, and goes above the box when
  /// the console's descriptor and the box are on the same terminal.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// app.set(\.issueReporter, to: TerminalConsole(output: 2).issueReporter)
  /// app.installAlertHost(presenter: TerminalAlertPresenter())
  /// ```
  public var issueReporter: IssueReporter {
    IssueReporter { issue in writeLine("warning: \(issue)") }
  }

  /// Writes the one-line report of how an item was resolved: `<title>: <outcome>`.
  ///
  /// ```swift
  /// let outcome = await showAlert.ask(alert)
  /// console.report(outcome, of: alert)  // Delete 3 notes?: dismissed
  /// ```
  ///
  /// - Parameters:
  ///   - outcome: How the item was resolved.
  ///   - item: The alert or toast.
  public func report<Item: Presentable>(
    _ outcome: PresentationOutcome<Item.Answer>, of item: Item
  ) {
    writeLine(Self.outcomeLine(outcome, of: item))
  }

  /// The one-line report of how an item was resolved, as ``report(_:of:)`` writes it.
  ///
  /// The title is put on one line and neutralised; the outcome is its `description`:
  /// `tapped Delete`, `dismissed`, `expired` or `dropped (<reason>)`.
  ///
  /// ```swift
  /// TerminalConsole.outcomeLine(.dismissed, of: AlertData(title: "Quit?"))  // "Quit?: dismissed"
  /// ```
  ///
  /// - Parameters:
  ///   - outcome: How the item was resolved.
  ///   - item: The alert or toast.
  /// - Returns: The line, without a line break.
  public static func outcomeLine<Item: Presentable>(
    _ outcome: PresentationOutcome<Item.Answer>, of item: Item
  ) -> String {
    TextSanitizer.sanitize("\(item.title): \(outcome)", mode: .singleLine)
  }
}
