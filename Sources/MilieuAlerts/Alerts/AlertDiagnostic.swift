import Milieu

/// A rule an alert's input broke, where, and how Milieu repaired it.
///
/// ``AlertData`` checks its input when it is made and reports each broken rule through the
/// current node's `issueReporter` — a test failure under a test
/// runner, a line on standard error otherwise — then shows the repaired alert. Nothing crashes
/// and nothing is dropped silently.
///
/// ```swift
/// let alert = AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
/// print(alert.diagnostics[0])
/// // an alert made at App/Main.swift:3 breaks the rule "at most one cancel button": …
/// ```
public struct AlertDiagnostic: Sendable, Equatable, CustomStringConvertible {
  /// The rules an alert's input must follow.
  public enum Rule: String, Sendable, CaseIterable {
    /// An alert has a title or a message. Repair: the title becomes "Alert".
    case titleOrMessage = "a title or a message"
    /// At most one button has the cancel role. Repair: later cancel buttons become default.
    case oneCancelButton = "at most one cancel button"
    /// No two buttons share a title. Repair: later ones get " (2)", " (3)" … appended.
    case distinctButtonTitles = "distinct button titles"
    /// Every button has a title. Repair: an untitled button is named "Button N".
    case buttonTitles = "every button has a title"
    /// A title stays under 1,000 characters and a message under 20,000. Repair: the text is cut
    /// and ends with "…".
    case reasonableLength = "a reasonable length"
  }

  /// The rule that was broken.
  public let rule: Rule
  /// What was wrong, and how it was repaired.
  public let detail: String
  /// How to fix the call.
  public let fix: String
  /// Where the alert was made.
  public let callSite: CallSite

  init(_ violation: AlertValidation.Violation, at callSite: CallSite) {
    rule = violation.rule
    detail = violation.detail
    fix = violation.fix
    self.callSite = callSite
  }

  /// The diagnostic in one line: the rule, what happened, and the fix.
  public var description: String {
    "an alert made at \(callSite) breaks the rule \"\(rule.rawValue)\": \(detail) Fix: \(fix)"
  }
}

/// The checks behind ``AlertData``'s initializer, as a pure function.
enum AlertValidation {
  static let maximumTitleLength = 1_000
  static let maximumMessageLength = 20_000

  struct Violation: Sendable, Equatable {
    var rule: AlertDiagnostic.Rule
    var detail: String
    var fix: String
  }

  struct Result {
    var title: String
    var message: String?
    var buttons: [AlertButton]
    var violations: [Violation] = []
  }

  static func check(title: String, message: String?, buttons: [AlertButton]) -> Result {
    var result = Result(title: title, message: message, buttons: buttons)
    checkText(&result)
    if result.title.isEmpty && (result.message ?? "").isEmpty {
      result.title = "Alert"
      result.violations.append(
        Violation(
          rule: .titleOrMessage,
          detail: "the alert has an empty title and no message; it is shown titled \"Alert\".",
          fix: "pass a title that says what happened."))
    }
    if result.buttons.isEmpty {
      result.buttons = [.cancel("OK")]
      return result
    }
    checkButtonTitles(&result)
    checkCancelButtons(&result)
    checkDuplicateTitles(&result)
    return result
  }

  private static func checkText(_ result: inout Result) {
    if result.title.count > maximumTitleLength {
      let length = result.title.count
      result.title = String(result.title.prefix(maximumTitleLength - 1)) + "…"
      result.violations.append(
        Violation(
          rule: .reasonableLength,
          detail: "the title has \(length) characters; it is cut to \(maximumTitleLength).",
          fix: "keep the title short and put details in the message."))
    }
    if let message = result.message, message.count > maximumMessageLength {
      result.message = String(message.prefix(maximumMessageLength - 1)) + "…"
      result.violations.append(
        Violation(
          rule: .reasonableLength,
          detail:
            "the message has \(message.count) characters; it is cut to \(maximumMessageLength).",
          fix: "show long text somewhere other than an alert."))
    }
  }

  private static func checkButtonTitles(_ result: inout Result) {
    for index in result.buttons.indices where result.buttons[index].title.isEmpty {
      let name = "Button \(index + 1)"
      result.buttons[index] = result.buttons[index].with(title: name)
      result.violations.append(
        Violation(
          rule: .buttonTitles,
          detail: "button \(index + 1) has an empty title; it is shown as \"\(name)\".",
          fix: "give every button a title that names its action."))
    }
  }

  private static func checkCancelButtons(_ result: inout Result) {
    let cancels = result.buttons.indices.filter { result.buttons[$0].role == .cancel }
    guard cancels.count > 1 else { return }
    for index in cancels.dropFirst() {
      result.buttons[index] = result.buttons[index].with(role: .default)
    }
    let titles = cancels.map { "\"\(result.buttons[$0].title)\"" }.joined(separator: ", ")
    result.violations.append(
      Violation(
        rule: .oneCancelButton,
        detail:
          "buttons \(titles) all have the cancel role; only the first keeps it, the others "
          + "are shown as default buttons.",
        fix: "give the cancel role to one button only."))
  }

  private static func checkDuplicateTitles(_ result: inout Result) {
    var seen: [String: Int] = [:]
    for index in result.buttons.indices {
      let title = result.buttons[index].title
      let count = seen[title, default: 0] + 1
      seen[title] = count
      guard count > 1 else { continue }
      var renamed = "\(title) (\(count))"
      var suffix = count
      while result.buttons.contains(where: { $0.title == renamed }) {
        suffix += 1
        renamed = "\(title) (\(suffix))"
      }
      result.buttons[index] = result.buttons[index].with(title: renamed)
      result.violations.append(
        Violation(
          rule: .distinctButtonTitles,
          detail:
            "two buttons are titled \"\(title)\"; the later one is shown as \"\(renamed)\" so "
            + "each can be told apart and tapped by title.",
          fix: "give each button its own title."))
    }
  }
}
