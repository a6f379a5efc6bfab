import Milieu
import MilieuAlerts

/// Why an ``AlertRecorder`` could not do what a test asked.
///
/// ```swift
/// do {
///   try await recorder.tap("Sign In")
/// } catch {
///   print(error)  // tap("Sign In"): the alert "Log in" has no button "Sign In"; its buttons are "Cancel", "Log In".
/// }
/// ```
public enum AlertRecorderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No alert is shown.
  case noAlert(request: String, shownSoFar: [String])
  /// The shown alert has no button with that title.
  case noSuchButton(String, alert: String, buttons: [String])
  /// Several buttons match the title, which differs from each of them only in letter case.
  case ambiguousButton(String, alert: String, matches: [String])
  /// The shown alert has no text field with that label.
  case noSuchTextField(String, alert: String, fields: [String])
  /// Several text fields match the label, which differs from each of them only in letter case.
  case ambiguousTextField(String, alert: String, matches: [String])
  /// No alert arrived in time.
  case timedOut(after: Duration, shownSoFar: [String])
  /// No alert became current in time: the alert ``AlertRecorder/next(timeout:clock:)`` returned
  /// last is still shown, unanswered, and the pending ones wait behind it.
  case waitingBehind(String, pending: [String], after: Duration)

  /// What went wrong and what to do.
  ///
  /// The titles it quotes are neutralised: a test's output reaches a terminal too.
  public var description: String {
    let q = DiagnosticText.quoted
    switch self {
    case .noAlert(let request, let shown):
      return "\(DiagnosticText.neutralised(request, lineBreak: " ")): no alert is shown. "
        + Self.history(shown)
    case .noSuchButton(let title, let alert, let buttons):
      return
        "tap(\(q(title))): the alert \(q(alert)) has no button \(q(title)); its buttons are "
        + buttons.map(q).joined(separator: ", ") + "."
    case .ambiguousButton(let title, let alert, let matches):
      return
        "tap(\(q(title))): the alert \(q(alert)) has several buttons that match \(q(title)) "
        + "when letter case is ignored: " + matches.map(q).joined(separator: ", ")
        + ". Use the exact title."
    case .noSuchTextField(let label, let alert, let fields):
      return
        "type(into: \(q(label))): the alert \(q(alert)) has no text field \(q(label)); "
        + (fields.isEmpty
          ? "it has no text fields."
          : "its text fields are " + fields.map(q).joined(separator: ", ") + ".")
    case .ambiguousTextField(let label, let alert, let matches):
      return
        "type(into: \(q(label))): the alert \(q(alert)) has several text fields that match "
        + "\(q(label)) when letter case is ignored: " + matches.map(q).joined(separator: ", ")
        + ". Use the exact label."
    case .timedOut(let duration, let shown):
      return "next(timeout: \(duration)): no alert was shown in time. \(Self.history(shown))"
    case .waitingBehind(let current, let pending, let duration):
      return
        "next(timeout: \(duration)): no alert became current in time: \"\(current)\" is still "
        + "shown, and " + pending.map { "\"\($0)\"" }.joined(separator: ", ")
        + (pending.count == 1 ? " waits" : " wait") + " behind it. Alerts are shown one at a "
        + "time: answer \"\(current)\" (tap, dismiss) before asking next() for the alert after it."
    }
  }

  private static func history(_ shown: [String]) -> String {
    shown.isEmpty
      ? "No alert has been shown yet."
      : "Alerts shown so far: " + shown.map(DiagnosticText.quoted).joined(separator: ", ") + "."
  }
}
