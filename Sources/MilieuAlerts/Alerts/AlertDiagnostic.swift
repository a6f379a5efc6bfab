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
    /// A title stays within 1,000 characters and 4,000 Unicode scalars, a message within 20,000
    /// characters and 80,000 scalars (so that one character heaped with combining marks counts
    /// for what it weighs); a text field's label within 1,000 characters and 4,000 scalars, its
    /// text within 4,096 characters and 16,384 scalars. Repair: the text is cut and ends with
    /// "…".
    case reasonableLength = "a reasonable length"
    /// An alert has at most 64 buttons. Repair: the first 64 are kept; when the cancel button
    /// comes later, the first 63 and the cancel button.
    case buttonCount = "a reasonable number of buttons"
    /// Every text field has a label, which says what to type. Repair: an unlabelled field is
    /// named "Field N".
    case textFieldLabels = "every text field has a label"
    /// No two text fields share a label. Repair: later ones get " (2)", " (3)" … appended.
    case distinctTextFieldLabels = "distinct text field labels"
    /// An alert has at most 8 text fields. Repair: the first 8 are kept.
    case textFieldCount = "a reasonable number of text fields"
    /// A field's text — the text it starts with, or what is entered — holds no control
    /// characters. Repair: a line break or a tab becomes a space; any other control character
    /// (C0, DEL, C1) is left out.
    case plainFieldText = "field text without control characters"
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

  /// The message of the issue reported for this diagnostic: the description without the call
  /// site, which the issue carries and says first.
  package var issueMessage: String {
    "an alert breaks the rule \"\(rule.rawValue)\": \(detail) Fix: \(fix)"
  }
}

/// The checks behind ``AlertData``'s initializer, as a pure function.
package enum AlertValidation {
  static let maximumTitleLength = 1_000
  static let maximumMessageLength = 20_000
  static let maximumTitleScalars = 4_000
  static let maximumMessageScalars = 80_000
  static let maximumButtonCount = 64
  static let maximumTextFieldCount = 8
  /// The most characters a text field's text holds; a terminal stops taking keys there.
  package static let maximumFieldTextLength = 4_096
  static let maximumFieldTextScalars = 16_384

  struct Violation: Sendable, Equatable {
    var rule: AlertDiagnostic.Rule
    var detail: String
    var fix: String
  }

  struct Result {
    var title: String
    var message: String?
    var buttons: [AlertButton]
    var textFields: [AlertTextField] = []
    var violations: [Violation] = []
  }

  static func check(
    title: String, message: String?, textFields: [AlertTextField] = [], buttons: [AlertButton]
  ) -> Result {
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
    if !textFields.isEmpty { checkTextFields(textFields, into: &result) }
    if result.buttons.isEmpty {
      result.buttons = [.cancel("OK")]
      return result
    }
    checkButtonCount(&result)
    checkButtonTitles(&result)
    checkCancelButtons(&result)
    checkDuplicateTitles(&result)
    return result
  }

  private static func checkText(_ result: inout Result) {
    if let (cut, detail) = cut(
      result.title, named: "title", characters: maximumTitleLength, scalars: maximumTitleScalars)
    {
      result.title = cut
      result.violations.append(
        Violation(
          rule: .reasonableLength, detail: detail,
          fix: "keep the title short and put details in the message."))
    }
    if let message = result.message,
      let (cut, detail) = cut(
        message, named: "message", characters: maximumMessageLength,
        scalars: maximumMessageScalars)
    {
      result.message = cut
      result.violations.append(
        Violation(
          rule: .reasonableLength, detail: detail,
          fix: "show long text somewhere other than an alert."))
    }
  }

  /// `text` cut to both limits and ending with "…", with what was done; `nil` when it fits.
  private static func cut(
    _ text: String, named name: String, characters: Int, scalars: Int
  ) -> (String, String)? {
    // Most text is far below either limit: its UTF-8 length bounds both counts from above.
    if text.utf8.count <= min(characters, scalars) { return nil }
    let characterCount = text.count
    let scalarCount = text.unicodeScalars.count
    guard characterCount > characters || scalarCount > scalars else { return nil }
    var cut = characterCount > characters ? String(text.prefix(characters - 1)) : text
    if cut.unicodeScalars.count >= scalars {
      cut = String(String.UnicodeScalarView(cut.unicodeScalars.prefix(scalars - 1)))
    }
    let detail =
      characterCount > characters
      ? "the \(name) has \(characterCount) characters; it is cut to \(characters)."
      : "the \(name) has \(scalarCount) Unicode scalars (combining marks included); it is cut "
        + "to \(scalars)."
    return (cut + "…", detail)
  }

  private static func checkButtonCount(_ result: inout Result) {
    let count = result.buttons.count
    guard count > maximumButtonCount else { return }
    let kept: String
    if let cancel = result.buttons.firstIndex(where: { $0.role == .cancel }),
      cancel >= maximumButtonCount
    {
      result.buttons = result.buttons.prefix(maximumButtonCount - 1) + [result.buttons[cancel]]
      kept = "the first \(maximumButtonCount - 1) and its cancel button"
    } else {
      result.buttons = Array(result.buttons.prefix(maximumButtonCount))
      kept = "the first \(maximumButtonCount)"
    }
    result.violations.append(
      Violation(
        rule: .buttonCount,
        detail: "the alert has \(count) buttons; it is shown with \(kept).",
        fix: "offer at most \(maximumButtonCount) choices in an alert, and longer lists "
          + "somewhere else."))
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
    let titles = cancels.map { DiagnosticText.quoted(result.buttons[$0].title) }
      .joined(separator: ", ")
    result.violations.append(
      Violation(
        rule: .oneCancelButton,
        detail:
          "buttons \(titles) all have the cancel role; only the first keeps it, the others "
          + "are shown as default buttons.",
        fix: "give the cancel role to one button only."))
  }

  private static func checkDuplicateTitles(_ result: inout Result) {
    let titles = result.buttons.map(\.title)
    let distinct = distinctTitles(titles)
    for index in titles.indices where distinct[index] != titles[index] {
      result.buttons[index] = result.buttons[index].with(title: distinct[index])
      result.violations.append(
        Violation(
          rule: .distinctButtonTitles,
          detail:
            "two buttons are titled \(DiagnosticText.quoted(titles[index])); the later one is "
            + "shown as \(DiagnosticText.quoted(distinct[index])) so each can be told apart and "
            + "tapped by title.",
          fix: "give each button its own title."))
    }
  }

  private static func checkTextFields(_ fields: [AlertTextField], into result: inout Result) {
    var fields = fields
    if fields.count > maximumTextFieldCount {
      result.violations.append(
        Violation(
          rule: .textFieldCount,
          detail:
            "the alert has \(fields.count) text fields; it is shown with the first "
            + "\(maximumTextFieldCount).",
          fix: "ask for at most \(maximumTextFieldCount) values in an alert, and for more "
            + "somewhere else."))
      fields.removeLast(fields.count - maximumTextFieldCount)
    }
    for index in fields.indices {
      let name = "text field \(index + 1)"
      if let (cut, detail) = cut(
        fields[index].label, named: "label of \(name)", characters: maximumTitleLength,
        scalars: maximumTitleScalars)
      {
        fields[index] = fields[index].with(label: cut)
        result.violations.append(
          Violation(
            rule: .reasonableLength, detail: detail,
            fix: "keep a field's label short: it names what to type."))
      }
      let (text, violations) = checkFieldText(fields[index].text, named: "text of \(name)")
      fields[index].text = text
      result.violations += violations
    }
    for index in fields.indices where fields[index].label.isEmpty {
      let name = "Field \(index + 1)"
      fields[index] = fields[index].with(label: name)
      result.violations.append(
        Violation(
          rule: .textFieldLabels,
          detail: "text field \(index + 1) has an empty label; it is shown as \"\(name)\".",
          fix: "give every text field a label that says what to type, such as \"Name\"."))
    }
    let labels = fields.map(\.label)
    let distinct = distinctTitles(labels)
    for index in labels.indices where distinct[index] != labels[index] {
      fields[index] = fields[index].with(label: distinct[index])
      result.violations.append(
        Violation(
          rule: .distinctTextFieldLabels,
          detail:
            "two text fields are labelled \(DiagnosticText.quoted(labels[index])); the later one "
            + "is shown as \(DiagnosticText.quoted(distinct[index])) so each can be told apart "
            + "and typed into by label.",
          fix: "give each text field its own label."))
    }
    result.textFields = fields
  }

  /// A field's text repaired to follow the rules — no control characters, a reasonable
  /// length — with what was broken.
  ///
  /// - Parameters:
  ///   - text: The text the field starts with, or the text entered in it.
  ///   - name: What the details call the text, after "the": `text of text field 1`.
  /// - Returns: The repaired text, and the rules it broke, in order.
  static func checkFieldText(
    _ text: String, named name: @autoclosure () -> String
  ) -> (String, [Violation]) {
    // Most text breaks no rule: its UTF-8 length bounds both counts from above, and nothing
    // about it needs a name.
    if text.utf8.count <= maximumFieldTextLength,
      !text.unicodeScalars.contains(where: DiagnosticText.isControlCharacter)
    {
      return (text, [])
    }
    let name = name()
    var violations: [Violation] = []
    let (plain, controlCharacters) = AlertTextField.plainText(text)
    if controlCharacters > 0 {
      violations.append(
        Violation(
          rule: .plainFieldText,
          detail:
            "the \(name) holds \(controlCharacters) control character"
            + (controlCharacters == 1 ? "" : "s")
            + "; line breaks and tabs become spaces and the others are left out.",
          fix: "pass one line of plain text: a field holds no line breaks, tabs or escapes."))
    }
    guard
      let (cut, detail) = cut(
        plain, named: name, characters: maximumFieldTextLength, scalars: maximumFieldTextScalars)
    else { return (plain, violations) }
    violations.append(
      Violation(
        rule: .reasonableLength, detail: detail,
        fix: "keep a field's text to one line of a reasonable length."))
    return (cut, violations)
  }

  /// Text entered in a field, repaired to follow the rules, with a phrase for each rule it
  /// broke: `the rule "…": what was wrong and repaired. Fix: …`.
  ///
  /// - Parameters:
  ///   - text: The text entered.
  ///   - label: The field's label.
  /// - Returns: The repaired text, and a phrase for each rule it broke.
  package static func repairEntered(
    _ text: String, label: String
  ) -> (text: String, brokenRules: [String]) {
    let (repaired, violations) = checkFieldText(
      text, named: "text entered in the field \(DiagnosticText.quoted(label))")
    return (
      repaired,
      violations.map { "the rule \"\($0.rule.rawValue)\": \($0.detail) Fix: \($0.fix)" }
    )
  }

  /// The titles with each repeated one renamed: the n-th copy of a title becomes "title (n)",
  /// or the next number that no title has.
  ///
  /// - Complexity: O(*n*) hash lookups in the number of titles: a number tried and found taken
  ///   is never tried again for the same title, since each title's next number only grows.
  static func distinctTitles(_ titles: [String]) -> [String] {
    var result = titles
    var taken = Set(titles)
    var copies: [String: Int] = [:]
    var nextSuffix: [String: Int] = [:]
    for index in titles.indices {
      let title = titles[index]
      let copy = copies[title, default: 0] + 1
      copies[title] = copy
      guard copy > 1 else { continue }
      var suffix = max(copy, nextSuffix[title, default: 0])
      var renamed = "\(title) (\(suffix))"
      while taken.contains(renamed) {
        suffix += 1
        renamed = "\(title) (\(suffix))"
      }
      taken.insert(renamed)
      nextSuffix[title] = suffix + 1
      result[index] = renamed
    }
    return result
  }
}
