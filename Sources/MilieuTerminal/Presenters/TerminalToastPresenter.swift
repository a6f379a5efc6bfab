import Milieu
import MilieuAlerts

/// The `Presenter` that shows a host's toasts in the terminal, one line each.
///
/// ```swift
/// let app = EnvironmentNode("app")
/// app.installToastHost(presenter: TerminalToastPresenter())
/// ```
///
/// ``present(_:in:)`` writes the toast as one line — its symbol and message, cut to the
/// terminal's width, the symbol coloured unless `NO_COLOR` is set — and
/// returns. The host times the toast on its own clock and presents the next one when it
/// expires. A toast that arrives while an alert is on screen is written above the alert's box,
/// which stays whole.
public struct TerminalToastPresenter: Presenter {
  /// Where toasts are written, and whether in colour.
  public var terminal: Terminal

  /// Creates a presenter.
  ///
  /// - Parameter terminal: Where toasts are written and whether in colour; standard output,
  ///   colour unless `NO_COLOR` is set, unless given.
  public init(terminal: Terminal = Terminal()) {
    self.terminal = terminal
  }

  /// Writes a toast that became current in a host as one line, and returns.
  ///
  /// The host calls this; you do not. A failed write is reported through the
  /// `issueReporter` environment value; the toast still expires on time.
  ///
  /// ```swift
  /// let toasts = ToastHost(presenter: TerminalToastPresenter())
  /// toasts.show(Toast("Saved", style: .success))  // ✔ Saved
  /// ```
  ///
  /// - Parameters:
  ///   - toast: The toast to show.
  ///   - host: The host that times it.
  public func present(_ toast: Toast, in host: ToastHost) {
    do {
      try terminal.show(TerminalToast(toast))
    } catch {
      host.issueReporter(for: toast).report(
        EnvironmentIssue(
          "The terminal could not show the toast \(DiagnosticText.quoted(toast.message)): "
            + "\(error).",
          at: toast.callSite))
    }
  }

  /// Does nothing: a toast's line stays in the scrollback once written.
  ///
  /// The host calls this; you do not.
  ///
  /// ```swift
  /// let toasts = ToastHost(policy: .replace, presenter: TerminalToastPresenter())
  /// ```
  ///
  /// - Parameters:
  ///   - toast: The toast taken away.
  ///   - host: The host that withdrew it.
  public func withdraw(_ toast: Toast, from host: ToastHost) {}
}
