import Milieu
import MilieuAlerts

/// The `Presenter` that shows a host's alerts in the terminal and answers the
/// host with the user's choice.
///
/// Install it on the root node with one call; every service below that calls `showAlert` is
/// then asked in the terminal:
///
/// ```swift
/// let app = EnvironmentNode("app")
/// let host = app.installAlertHost(presenter: TerminalAlertPresenter())
/// ```
///
/// When the host makes an alert current, ``present(_:in:)`` returns at once; the alert is asked
/// by a ``Terminal`` on a thread of its own — as a box read key by key on a terminal,
/// or as numbered text read line by line from a pipe — and the answer goes back to the host:
///
/// | the user | the host receives |
/// |---|---|
/// | chooses a button (Enter, its digit, its number or title in plain mode) | `tap(button, of: alert)` |
/// | fills in the alert's text fields, then chooses a button | the tap, with the text of each field |
/// | presses Esc or Ctrl-D, or input ends | `tap` of the cancel button, or `dismiss(alert)` when there is none |
/// | presses Ctrl-C | the terminal is restored and SIGINT raised (see ``Terminal/InterruptBehavior``); a program that survives it gets `dismiss(alert)` |
///
/// ``withdraw(_:from:)`` — the host replaced the alert, or the task awaiting it was cancelled —
/// takes the alert down: the box is erased and the terminal restored.
///
/// Alerts from every host on the same terminal take turns, one on screen at a time, so a
/// sheet's host and the app's host can both use a terminal presenter. If the terminal cannot be
/// used (standard input closed, say), the problem is reported through the
/// `issueReporter` environment value and the alert is dismissed, so it still resolves.
public struct TerminalAlertPresenter: Presenter {
  /// How alerts are drawn and read: descriptors, colour, keys.
  public var terminal: Terminal

  /// Creates a presenter.
  ///
  /// - Parameter terminal: How alerts are drawn and read; standard input and output, colour
  ///   unless `NO_COLOR` is set, unless given.
  public init(terminal: Terminal = Terminal()) {
    self.terminal = terminal
  }

  /// Starts asking an alert that became current in a host, and returns at once.
  ///
  /// The host calls this; you do not.
  ///
  /// ```swift
  /// let host = AlertHost(presenter: TerminalAlertPresenter())
  /// host.show(AlertData(title: "Saved"))  // drawn on the terminal
  /// ```
  ///
  /// - Parameters:
  ///   - alert: The alert to ask.
  ///   - host: The host to answer.
  public func present(_ alert: AlertData, in host: AlertHost) {
    queue.enqueue(
      TerminalAlertQueue.Request(
        alert: alert, host: host, terminal: terminal,
        issueReporter: host.issueReporter(for: alert)))
  }

  /// Takes down an alert the host no longer shows: the box is erased and the terminal restored,
  /// or the alert leaves the queue if it was still waiting for its turn.
  ///
  /// The host calls this; you do not.
  ///
  /// ```swift
  /// let host = AlertHost(policy: .replace, presenter: TerminalAlertPresenter())
  /// host.show(AlertData(title: "Old"))
  /// host.show(AlertData(title: "New"))  // withdraws "Old"
  /// ```
  ///
  /// - Parameters:
  ///   - alert: The alert to take down.
  ///   - host: The host that withdrew it.
  public func withdraw(_ alert: AlertData, from host: AlertHost) {
    queue.withdraw(alert.id)
  }

  private var queue: TerminalAlertQueue {
    TerminalAlertQueue.forTerminal(input: terminal.input, output: terminal.output)
  }
}
