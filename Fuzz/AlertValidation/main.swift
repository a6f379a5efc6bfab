import Milieu
import MilieuAlerts
import Synchronization

// Fuzzes the validation in `AlertData.init`: any title, message, text fields (any labels, any
// texts, any number) and buttons (any titles, any roles, any number) must give an alert that
// follows every rule, report exactly the diagnostics it lists, each with the text it quotes
// neutralised, keep each button's and field's identity and order, and then behave in a host,
// which refuses to show the same value twice at once and repairs whatever text is entered. Then a toast
// with any duration, the extremes included, must be accepted or repaired, never trap.

/// The issues reported while one input runs; the target runs inputs one at a time.
private let reportedIssues = Mutex<[EnvironmentIssue]>([])

/// The node every input runs in: its reporter collects issues instead of printing them.
private let fuzzNode = EnvironmentNode("fuzz").child {
  $0.issueReporter = IssueReporter { issue in reportedIssues.withLock { $0.append(issue) } }
}

private let roles: [AlertButton.Role] = [.default, .cancel, .destructive, .init("custom")]

/// libFuzzer's entry point: checks one input, and traps when an invariant fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzInput(data, count: count)
  reportedIssues.withLock { $0 = [] }
  fuzzNode.withCurrent { check(&input) }
  return 0
}

private func check(_ input: inout FuzzInput) {
  // Up to 1,024 repetitions of a fragment of up to 127 bytes: past both length limits (1,000
  // and 20,000 characters) with room to spare, yet fast enough for thousands of runs a second.
  let title = input.text(maximumRepetitions: 1_024)
  let message: String? = input.bool() ? input.text(maximumRepetitions: 1_024) : nil
  // Usually up to 8 buttons; now and then up to 80, past the 64 an alert may hold.
  let buttonCount = input.number(below: 9) == 8 ? input.number(below: 81) : input.number(below: 9)
  let buttons = (0..<buttonCount).map { _ in
    AlertButton(input.text(maximumRepetitions: 1_024), role: roles[input.number(below: 4)])
  }
  // Usually none to 3 text fields; now and then up to 12, past the 8 an alert may hold. Texts
  // repeat up to 6,144 times, past the 4,096 characters a field holds.
  let fieldCount = input.number(below: 8) == 7 ? input.number(below: 13) : input.number(below: 4)
  let fields = (0..<fieldCount).map { _ in
    AlertTextField(
      input.text(maximumRepetitions: 1_024), text: input.text(), isSecure: input.bool())
  }
  let line = UInt(input.byte()) + 1
  let direct = input.bool()
  let alert =
    direct
    ? AlertData(title: title, message: message, textFields: fields, buttons: buttons, line: line)
    : alertThroughState(
      title: title, message: message, textFields: fields, buttons: buttons, line: line)

  checkRules(alert)
  checkDiagnostics(alert, line: line)
  checkRepairs(
    alert, title: title, message: message, fields: fields, buttons: buttons, direct: direct)
  let entered = alert.textFields.map { _ in input.text() }
  checkHost(alert, answer: input.number(below: 12), entered: entered)
  checkToast(duration: duration(from: &input))
}

/// A duration from the input: the extremes and the limits (which found a trap in the clock's
/// sleep), or any seconds and attoseconds.
private func duration(from input: inout FuzzInput) -> Duration {
  let extremes: [Duration] = [
    .seconds(Int64.max), .seconds(Int64.min), .zero,
    Duration(secondsComponent: 0, attosecondsComponent: 1),
    Toast.longestTimedDuration, Toast.longestTimedDuration + .nanoseconds(1), Toast.forever,
    Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999),
    .seconds(Int64.max / 2), .seconds(-1),
  ]
  let pick = input.number(below: extremes.count + 1)
  if pick < extremes.count { return extremes[pick] }
  let seconds = input.bytes(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
  let attoseconds = input.bytes(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
  return Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
}

/// A toast keeps a duration a clock can time, shows forever, or is repaired with one report;
/// shown in a host on the continuous clock, it never traps.
private func checkToast(duration: Duration) {
  reportedIssues.withLock { $0 = [] }
  let toast = Toast("Toast", duration: duration)
  let issues = reportedIssues.withLock { $0 }
  if let lifetime = toast.lifetime {
    precondition(lifetime > .zero && lifetime <= Toast.longestTimedDuration, "lifetime \(lifetime)")
    _ = ContinuousClock.now.advanced(by: lifetime)
  } else {
    precondition(toast.duration == Toast.forever, "no lifetime, yet not forever")
  }
  let repaired =
    duration <= .zero || (duration > Toast.longestTimedDuration && duration < Toast.forever)
  precondition(issues.count == (repaired ? 1 : 0), "\(issues.count) issues for \(duration)")
  let host = ToastHost()
  host.show(toast)
  // A toast of a few attoseconds may have expired already: then there is nothing to dismiss.
  try? host.dismiss(toast)
  precondition(host.current == nil, "the toast is still shown")
}

/// The same input shown as an `AlertState` through a custom action, which converts it. Its
/// buttons send nothing, so that a tap resolves at once, without starting a task.
private func alertThroughState(
  title: String, message: String?, textFields: [AlertTextField], buttons: [AlertButton],
  line: UInt
) -> AlertData {
  let state = AlertState<Int>(
    title: title, message: message, textFields: textFields,
    buttons: buttons.map { AlertState.Button($0.title, role: $0.role) })
  let received = Mutex<AlertData?>(nil)
  let action = ShowAlertAction { alert, resolve in
    received.withLock { $0 = alert }
    resolve(.dismissed)
  }
  action(state, send: { _ in }, line: line)
  guard let alert = received.withLock({ $0 }) else {
    fatalError("the custom action never received the alert")
  }
  return alert
}

private func checkRules(_ alert: AlertData) {
  precondition(!alert.buttons.isEmpty, "an alert has no buttons")
  precondition(
    alert.buttons.count(where: { $0.role == .cancel }) <= 1, "an alert has two cancel buttons")
  let titles = alert.buttons.map(\.title)
  precondition(Set(titles).count == titles.count, "two buttons share a title: \(titles)")
  precondition(!titles.contains(""), "a button has an empty title")
  precondition(
    !alert.title.isEmpty || !(alert.message ?? "").isEmpty, "an alert has no title and no message")
  precondition(alert.title.count <= 1_000, "a title has \(alert.title.count) characters")
  precondition((alert.message?.count ?? 0) <= 20_000, "a message is longer than 20,000")
  precondition(alert.title.unicodeScalars.count <= 4_000, "a title has too many scalars")
  precondition(
    (alert.message?.unicodeScalars.count ?? 0) <= 80_000, "a message has too many scalars")
  precondition(alert.buttons.count <= 64, "an alert has \(alert.buttons.count) buttons")
  for index in alert.buttons.indices {
    guard let tap = alert.tapOfButton(at: index) else { fatalError("no tap at \(index)") }
    precondition(alert.isValid(tap), "the tap of button \(index) is not valid")
    precondition(tap.buttonID == alert.buttons[index].id, "the tap names another button")
  }
  precondition(alert.tapOfButton(at: alert.buttons.count) == nil, "a tap past the last button")
  let fields = alert.textFields
  precondition(fields.count <= 8, "an alert has \(fields.count) text fields")
  let labels = fields.map(\.label)
  precondition(!labels.contains(""), "a text field has an empty label")
  precondition(Set(labels).count == labels.count, "two text fields share a label: \(labels)")
  for field in fields {
    precondition(field.label.count <= 1_000, "a label has \(field.label.count) characters")
    precondition(field.label.unicodeScalars.count <= 4_000, "a label has too many scalars")
    precondition(field.text.count <= 4_096, "a field's text has \(field.text.count) characters")
    precondition(field.text.unicodeScalars.count <= 16_384, "a field's text has too many scalars")
    precondition(
      !field.text.unicodeScalars.contains(where: DiagnosticText.isControlCharacter),
      "a field's text holds a control character")
  }
}

private func checkDiagnostics(_ alert: AlertData, line: UInt) {
  let issues = reportedIssues.withLock { $0 }
  precondition(
    issues.count == alert.diagnostics.count,
    "\(issues.count) issues reported for \(alert.diagnostics.count) diagnostics")
  for (issue, diagnostic) in zip(issues, alert.diagnostics) {
    precondition(issue.location.line == line, "an issue names line \(issue.location.line)")
    precondition(diagnostic.callSite.line == line, "a diagnostic names the wrong line")
    precondition(issue.message == diagnostic.issueMessage, "an issue differs from its diagnostic")
    precondition(
      issue.message.contains("breaks the rule \"\(diagnostic.rule.rawValue)\""),
      "an issue does not name its rule")
    precondition(issue.message.contains("Fix: "), "an issue says no fix")
    precondition(
      !issue.message.unicodeScalars.contains(where: DiagnosticText.needsNeutralising),
      "a diagnostic quotes text a terminal would act on")
  }
}

private func checkRepairs(
  _ alert: AlertData, title: String, message: String?, fields: [AlertTextField],
  buttons: [AlertButton], direct: Bool
) {
  let rules = Set(alert.diagnostics.map(\.rule))
  // Past 8 text fields, the first 8 are kept, each with its identity and whether it is secure.
  let keptFields = Array(fields.prefix(8))
  precondition(rules.contains(.textFieldCount) == (fields.count > 8), "field count rule mismatch")
  precondition(alert.textFields.map(\.id) == keptFields.map(\.id), "a field lost its identity")
  precondition(
    alert.textFields.map(\.isSecure) == keptFields.map(\.isSecure), "a field changed its kind")
  precondition(
    keptFields.contains(where: \.label.isEmpty) == rules.contains(.textFieldLabels),
    "empty label rule mismatch")
  precondition(
    keptFields.contains {
      $0.text.unicodeScalars.contains(where: DiagnosticText.isControlCharacter)
    }
      == rules.contains(.plainFieldText), "field text rule mismatch")
  if buttons.isEmpty {
    precondition(
      alert.buttons.map(\.title) == ["OK"] && alert.buttons.map(\.role) == [.cancel],
      "no buttons did not give one OK cancel button")
  } else {
    // Past 64 buttons, the first 64 are kept, or the first 63 and the first cancel button.
    var kept = Array(buttons.indices.prefix(64))
    if buttons.count > 64, let cancel = buttons.firstIndex(where: { $0.role == .cancel }),
      cancel >= 64
    {
      kept = Array(buttons.indices.prefix(63)) + [cancel]
    }
    precondition(alert.buttons.count == kept.count, "the number of buttons changed")
    precondition(rules.contains(.buttonCount) == (buttons.count > 64), "button count rule mismatch")
    let buttons = kept.map { buttons[$0] }
    // Repairs keep each button's identity; a state's buttons are new ones, made from it.
    if direct {
      precondition(alert.buttons.map(\.id) == buttons.map(\.id), "a button lost its identity")
    }
    for (shown, given) in zip(alert.buttons, buttons) {
      precondition(
        shown.role == given.role || (given.role == .cancel && shown.role == .default),
        "a role changed from \(given.role) to \(shown.role)")
    }
    let cancelCount = buttons.count(where: { $0.role == .cancel })
    precondition((cancelCount > 1) == rules.contains(.oneCancelButton), "cancel rule mismatch")
    precondition(
      buttons.contains(where: \.title.isEmpty) == rules.contains(.buttonTitles),
      "empty button title rule mismatch")
  }
  let clean =
    alert.title == title && alert.message == message && fields.count <= 8
    && alert.textFields.map(\.label) == keptFields.map(\.label)
    && alert.textFields.map(\.text) == keptFields.map(\.text)
    && (buttons.isEmpty || alert.buttons.map(\.title) == buttons.map(\.title))
    && (buttons.isEmpty || alert.buttons.map(\.role) == buttons.map(\.role))
  precondition(clean == alert.diagnostics.isEmpty, "repairs and diagnostics disagree")
}

/// Shows the alert in a host and answers it: a tap on one of its buttons with `entered` typed
/// into its text fields, a dismissal, a stranger's button or a stale tap; the outcome must match
/// the answer exactly, and entered text must arrive repaired, each broken rule reported once.
private func checkHost(_ alert: AlertData, answer: Int, entered: [String]) {
  let host = AlertHost()
  let outcomes = Mutex<[AlertOutcome]>([])
  host.show(alert) { outcome in outcomes.withLock { $0.append(outcome) } }
  precondition(host.current?.id == alert.id, "the alert is not current")
  // The same value again, while it is shown: dropped as a duplicate of itself, and reported.
  reportedIssues.withLock { $0 = [] }
  let again = Mutex<[AlertOutcome]>([])
  host.show(alert) { outcome in again.withLock { $0.append(outcome) } }
  precondition(again.withLock { $0 } == [.dropped(.duplicate(of: alert.id))], "shown twice")
  precondition(reportedIssues.withLock { $0.count } == 1, "a second showing was not reported")
  precondition(
    !reportedIssues.withLock { $0[0].message }.unicodeScalars.contains(
      where: DiagnosticText.needsNeutralising), "the duplicate's report quotes raw text")
  let expected: AlertOutcome
  do {
    switch answer {
    case 0..<9 where answer < alert.buttons.count && !alert.textFields.isEmpty:
      reportedIssues.withLock { $0 = [] }
      try host.tap(alert.buttons[answer], of: alert, texts: entered)
      let repairs = zip(entered, alert.textFields).map { text, field in
        AlertValidation.repairEntered(text, label: field.label)
      }
      let issues = reportedIssues.withLock { $0 }
      precondition(
        issues.count == repairs.map(\.brokenRules.count).reduce(0, +),
        "\(issues.count) issues for entered text")
      precondition(
        !issues.contains {
          $0.message.unicodeScalars.contains(where: DiagnosticText.needsNeutralising)
        },
        "an issue about entered text quotes raw text")
      guard let tap = outcomes.withLock({ $0.first?.tappedButton }) else { fatalError("no tap") }
      precondition(tap.textFields.map(\.text) == repairs.map(\.text), "entered text not repaired")
      expected = .answered(tap)
    case 0..<9 where answer < alert.buttons.count:
      try host.tap(alert.buttons[answer], of: alert)
      guard let tap = alert.tapOfButton(at: answer) else { fatalError("no tap") }
      expected = .answered(tap)
    case 9:
      do {
        try host.tap(AlertButton(alert.buttons[0].title), of: alert)
        fatalError("a stranger's button was accepted")
      } catch {
        precondition(host.current?.id == alert.id, "a refused tap changed the host")
      }
      try host.dismiss(alert)
      expected = .dismissed
    default:
      try host.dismiss(alert)
      expected = .dismissed
    }
  } catch {
    fatalError("a valid answer was refused: \(error)")
  }
  precondition(host.current == nil && host.pendingCount == 0, "the host is not empty")
  do {
    try host.dismiss(alert)
    fatalError("a second answer was accepted")
  } catch {
    precondition(error == .notCurrent(alert.id, title: alert.title, current: nil), "\(error)")
  }
  precondition(outcomes.withLock { $0 } == [expected], "the outcome is not \(expected)")
}
