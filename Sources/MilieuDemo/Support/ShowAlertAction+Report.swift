import MilieuAlerts
import MilieuTerminal

extension ShowAlertAction {
  /// Shows an alert and waits for its outcome, which is written to the console as one line —
  /// `Delete 3 notes?: tapped Delete` — the moment the alert resolves, before anything else
  /// happens on screen.
  ///
  /// The line is written by the host's completion, which runs synchronously when the alert
  /// resolves; a line written after `ask` returned could come after the next alert was drawn.
  func askReporting(_ alert: AlertData, to console: TerminalConsole) async -> AlertOutcome {
    await withCheckedContinuation { continuation in
      self(alert) { outcome in
        console.report(outcome, of: alert)
        continuation.resume(returning: outcome)
      }
    }
  }

  /// Shows an alert without waiting; its outcome is written to the console when it resolves,
  /// then handed to `completion`.
  func showReporting(
    _ alert: AlertData, to console: TerminalConsole,
    completion: @escaping @Sendable (AlertOutcome) -> Void
  ) {
    self(alert) { outcome in
      console.report(outcome, of: alert)
      completion(outcome)
    }
  }
}
