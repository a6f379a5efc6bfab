import Milieu

/// An alert: a title, an optional message, and the buttons that answer it.
///
/// `AlertData` is what travels from the code that shows an alert to the host that presents it.
/// It is checked when it is made: an alert with no buttons gets one "OK" cancel button, and
/// input that breaks a rule — two cancel buttons, two buttons with the same title, no title and
/// no message — is reported with the rule, the call site and the fix, then repaired so the
/// alert can still be shown. ``diagnostics`` lists what was repaired.
///
/// ```swift
/// let alert = AlertData(
///   title: "Delete 3 notes?",
///   message: "This cannot be undone.",
///   buttons: [.destructive("Delete") { await notes.delete() }, .cancel()])
/// ```
public struct AlertData: Presentable {
  /// The fields, in one immutable object: an alert is copied at every step of its way through a
  /// host, and a copy should cost one retain, not one per field.
  private let storage: Storage

  private final class Storage: Sendable {
    let id: PresentationID
    let title: String
    let message: String?
    let textFields: [AlertTextField]
    let buttons: [AlertButton]
    let deduplicationKey: String?
    let priority: PresentationPriority
    let callSite: CallSite
    let diagnostics: [AlertDiagnostic]

    init(
      id: PresentationID, title: String, message: String?, textFields: [AlertTextField],
      buttons: [AlertButton], deduplicationKey: String?, priority: PresentationPriority,
      callSite: CallSite, diagnostics: [AlertDiagnostic]
    ) {
      self.id = id
      self.title = title
      self.message = message
      self.textFields = textFields
      self.buttons = buttons
      self.deduplicationKey = deduplicationKey
      self.priority = priority
      self.callSite = callSite
      self.diagnostics = diagnostics
    }
  }

  /// The alert's identity, unique in the process.
  public var id: PresentationID { storage.id }
  /// The title.
  public var title: String { storage.title }
  /// The message under the title, if any.
  public var message: String? { storage.message }
  /// The text fields, each with the text it starts with; at most 8, each labelled, no two
  /// labels alike. What is entered comes back in the tap: ``AlertTap/textFields``.
  public var textFields: [AlertTextField] { storage.textFields }
  /// The buttons, never empty, with at most one cancel button and no two titles alike.
  public var buttons: [AlertButton] { storage.buttons }
  /// Alerts with the same key are duplicates: a deduplicating host shows only the first.
  public var deduplicationKey: String? { storage.deduplicationKey }
  /// How soon the alert is presented when others wait: a host's queue presents higher
  /// priorities first, and first come, first served within one.
  public var priority: PresentationPriority { storage.priority }
  /// Where the alert was made.
  public var callSite: CallSite { storage.callSite }
  /// The rules the input broke, and how each was repaired; empty for good input.
  public var diagnostics: [AlertDiagnostic] { storage.diagnostics }

  /// Makes an alert, repairing and reporting bad input.
  ///
  /// ```swift
  /// let saved = AlertData(title: "Saved")  // one "OK" button
  /// let rename = AlertData(
  ///   title: "Rename \"Roadmap\"",
  ///   textFields: [AlertTextField("Name", text: "Roadmap")],
  ///   buttons: [.default("Rename"), .cancel()])
  /// ```
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - textFields: The text fields, in order; see ``AlertTextField``.
  ///   - buttons: The buttons; none means one "OK" cancel button.
  ///   - deduplicationKey: Alerts with the same key are duplicates.
  ///   - priority: How soon the alert is presented when others wait; see
  ///     ``PresentationPriority``.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public init(
    title: String, message: String? = nil, textFields: [AlertTextField] = [],
    buttons: [AlertButton] = [], deduplicationKey: String? = nil,
    priority: PresentationPriority = .normal,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let checked = AlertValidation.check(
      title: title, message: message, textFields: textFields, buttons: buttons)
    storage = Storage(
      id: PresentationID(), title: checked.title, message: checked.message,
      textFields: checked.textFields, buttons: checked.buttons, deduplicationKey: deduplicationKey,
      priority: priority,
      callSite: callSite, diagnostics: checked.violations.map { AlertDiagnostic($0, at: callSite) })
    for diagnostic in storage.diagnostics {
      // The issue carries the call site, and says it first: the message does not repeat it.
      EnvironmentNode.current[\.issueReporter].report(
        EnvironmentIssue(diagnostic.issueMessage, at: callSite))
    }
  }

  /// The cancel button, if the alert has one.
  public var cancelButton: AlertButton? { buttons.first { $0.role == .cancel } }

  /// The button with a title, if the alert has one.
  ///
  /// - Parameter title: The title to look for, compared exactly.
  /// - Returns: The button.
  public func button(titled title: String) -> AlertButton? {
    buttons.first { $0.title == title }
  }

  /// The tap of the button at a position, to answer the alert with through
  /// ``PresentationHost/answer(_:for:)``; each text field keeps the text it starts with.
  ///
  /// - Parameter index: The button's position, from 0.
  /// - Returns: The tap, or `nil` when there is no such button.
  public func tapOfButton(at index: Int) -> AlertTap? {
    guard buttons.indices.contains(index) else { return nil }
    guard hasTextFields else { return AlertTap(buttons[index], at: index) }
    return AlertTap(buttons[index], at: index, textFields: textFields)
  }

  /// The tap of the button at a position, with the text entered in each text field.
  ///
  /// ```swift
  /// if let tap = alert.tapOfButton(at: 0, texts: ["Groceries"]) {
  ///   try host.answer(tap, for: alert)
  /// }
  /// ```
  ///
  /// Entered text that breaks a rule of ``AlertTextField`` — a control character, more than
  /// 4,096 characters — is repaired and reported through the current node's `issueReporter`
  /// with the rule (``AlertDiagnostic/Rule/plainFieldText``,
  /// ``AlertDiagnostic/Rule/reasonableLength``) and the fix.
  ///
  /// - Parameters:
  ///   - index: The button's position, from 0.
  ///   - texts: The text entered in each of ``textFields``, in order.
  /// - Returns: The tap, or `nil` when there is no such button or `texts` does not have one
  ///   text per field.
  public func tapOfButton(at index: Int, texts: [String]) -> AlertTap? {
    tap(ofButtonAt: index, texts: texts, reportingTo: EnvironmentNode.current[\.issueReporter])
  }

  /// The tap of the button at `index` with `texts` entered, repaired, each broken rule reported
  /// to `reporter`; `nil` when there is no such button or not one text per field.
  package func tap(
    ofButtonAt index: Int, texts: [String], reportingTo reporter: @autoclosure () -> IssueReporter
  ) -> AlertTap? {
    guard buttons.indices.contains(index), texts.count == textFields.count else { return nil }
    var fields = textFields
    for position in fields.indices {
      let (text, brokenRules) = AlertValidation.repairEntered(
        texts[position], label: fields[position].label)
      fields[position].text = text
      for brokenRule in brokenRules {
        reporter().report(
          EnvironmentIssue(
            "the alert \(DiagnosticText.quoted(title)) was answered with text that breaks "
              + brokenRule,
            at: callSite))
      }
    }
    return AlertTap(buttons[index], at: index, textFields: fields)
  }

  /// The same alert, with the same identities, whose buttons carry no actions: what a record of
  /// the alert keeps, so that keeping it keeps nothing its actions captured alive.
  package var withoutActions: AlertData {
    AlertData(copying: self, buttons: buttons.map { $0.withoutAction })
  }

  private init(copying alert: AlertData, buttons: [AlertButton]) {
    storage = Storage(
      id: alert.id, title: alert.title, message: alert.message, textFields: alert.textFields,
      buttons: buttons,
      deduplicationKey: alert.deduplicationKey, priority: alert.priority, callSite: alert.callSite,
      diagnostics: alert.diagnostics)
  }

  // MARK: Presentable

  /// Alerts stay until they are answered.
  public var lifetime: Duration? { nil }
  /// Alerts do not expire.
  public var expiryAnswer: AlertTap? { nil }

  /// Whether the tap is of one of this alert's buttons, at its position.
  ///
  /// A tap that carries text fields is made from the alert it answers (``tapOfButton(at:texts:)``),
  /// so the button's identity, unique in the process, vouches for its fields too.
  ///
  /// - Parameter tap: The tap.
  /// - Returns: Whether it belongs to this alert.
  public func isValid(_ tap: AlertTap) -> Bool {
    buttons.indices.contains(tap.index) && buttons[tap.index].id == tap.buttonID
  }

  /// Whether the alert has text fields, read without copying them.
  var hasTextFields: Bool { !storage.textFields.isEmpty }

  /// The tapped button's action, or the cancel button's for a dismissal.
  ///
  /// - Parameter tap: A tap that ``isValid(_:)`` accepted, or `nil` for a dismissal.
  /// - Returns: The action to run.
  public func action(for tap: AlertTap?) -> (@Sendable () async -> Void)? {
    guard let tap else { return cancelButton?.action }
    return buttons[tap.index].action
  }
}
