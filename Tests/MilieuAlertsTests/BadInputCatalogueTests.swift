@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Testing

@testable import MilieuAlerts

/// Every bad input the documentation mentions, each with the diagnostic it gets (the exact
/// message and the call site) and its documented outcome. Nothing here crashes, and nothing is
/// dropped silently.
///
/// The terminal half of the catalogue — what the renderer does with the same inputs — is in
/// `Tests/MilieuTerminalTests/BadInputRenderingTests.swift`.
@Suite struct BadInputCatalogueTests {
  /// Where each diagnostic in this file points: `MilieuAlertsTests/BadInputCatalogueTests.swift:N`.
  static func site(_ line: Int) -> String { "\(#fileID):\(line)" }

  // MARK: Alert validation

  @Test func twoCancelButtons() async throws {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let host = catalogue.installAlertHost()
    let runs = Counter()
    let line = #line + 2
    catalogue.withCurrent {
      catalogue[\.showAlert](
        title: "Quit?", buttons: [.cancel("No") { runs.increment() }, .cancel("Never")])
    }

    #expect(
      issues.all.map(\.message) == [
        "an alert breaks the rule \"at most one cancel button\": "
          + "buttons \"No\", \"Never\" all have the cancel role; only the first keeps it, the "
          + "others are shown as default buttons. Fix: give the cancel role to one button only."
      ])
    #expect(issues.all.map(\.location.line) == [UInt(line)])
    #expect(issues.all.map(\.location.fileID) == [#fileID])
    // Outcome: shown, with the first cancel button as the cancel button; dismissing runs it.
    let alert = try #require(host.current)
    #expect(alert.buttons.map(\.role) == [.cancel, .default])
    #expect(alert.diagnostics.map(\.rule) == [.oneCancelButton])
    try await host.dismissAndWait(alert)
    #expect(runs.count == 1)
  }

  @Test func twoCancelButtonsInAnAlertState() async throws {
    enum Action: Sendable, Equatable { case no, never }
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let host = catalogue.installAlertHost()
    let sent = Lock<[Action]>([])
    let state = AlertState<Action>(
      title: "Quit?", primaryButton: .cancel("No", send: .no),
      secondaryButton: .cancel("Never", send: .never))
    let line = #line + 2
    catalogue.withCurrent {
      catalogue[\.showAlert](state) { action in sent.withLock { $0.append(action) } }
    }

    #expect(issues.all.map(\.location.line) == [UInt(line)])
    #expect(
      issues.all.first?.message.contains("breaks the rule \"at most one cancel button\"") == true)
    let alert = try #require(host.current)
    #expect(alert.buttons.map(\.role) == [.cancel, .default])
    try await host.dismissAndWait(alert)
    #expect(sent.withLock { $0 } == [.no])
  }

  @Test func duplicateButtonTitles() async throws {
    let line = #line + 2
    let (alert, issues) = Self.make {
      AlertData(title: "Pick", buttons: [.default("Same"), .destructive("Same"), .cancel("Same")])
    }
    #expect(alert.buttons.map(\.title) == ["Same", "Same (2)", "Same (3)"])
    #expect(alert.buttons.map(\.role) == [.default, .destructive, .cancel])
    #expect(
      issues.map(\.message)
        == [2, 3].map { number in
          "an alert breaks the rule \"distinct button titles\": two "
            + "buttons are titled \"Same\"; the later one is shown as \"Same (\(number))\" so each "
            + "can be told apart and tapped by title. Fix: give each button its own title."
        })
    #expect(issues.map(\.location.line) == [UInt(line), UInt(line)])
    // Outcome: each can be tapped by its shown title.
    let host = AlertHost()
    let outcome = Outcomes()
    host.show(alert) { outcome.append($0) }
    let second = try #require(alert.button(titled: "Same (2)"))
    try await host.tapAndWait(second, of: alert)
    #expect(outcome.all.map(\.tappedButton?.index) == [1])
  }

  @Test func aRenamedTitleNeverCollidesWithAGivenOne() {
    let (alert, issues) = Self.make {
      AlertData(title: "Pick", buttons: [.default("A"), .default("A"), .default("A (2)")])
    }
    #expect(alert.buttons.map(\.title) == ["A", "A (3)", "A (2)"])
    #expect(issues.count == 1)
  }

  @Test func anEmptyTitleAndNoMessage() {
    let line = #line + 1
    let (alert, issues) = Self.make { AlertData(title: "") }
    #expect(alert.title == "Alert")
    #expect(alert.buttons.map(\.title) == ["OK"] && alert.buttons.map(\.role) == [.cancel])
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"a title or a message\": the "
          + "alert has an empty title and no message; it is shown titled \"Alert\". Fix: pass a "
          + "title that says what happened."
      ])
    #expect(issues.map(\.location.line) == [UInt(line)])
  }

  @Test func emptyEverything() {
    let line = #line + 2
    let (alert, issues) = Self.make {
      AlertData(title: "", message: "", buttons: [.default(""), .cancel(""), .default("")])
    }
    #expect(alert.title == "Alert")
    #expect(alert.message == "")
    #expect(alert.buttons.map(\.title) == ["Button 1", "Button 2", "Button 3"])
    #expect(alert.buttons.map(\.role) == [.default, .cancel, .default])
    #expect(
      alert.diagnostics.map(\.rule) == [
        .titleOrMessage, .buttonTitles, .buttonTitles, .buttonTitles,
      ])
    #expect(
      Array(issues.map(\.message).dropFirst())
        == [1, 2, 3].map { number in
          "an alert breaks the rule \"every button has a title\": "
            + "button \(number) has an empty title; it is shown as \"Button \(number)\". Fix: give "
            + "every button a title that names its action."
        })
    #expect(issues.allSatisfy { $0.location.line == UInt(line) })
  }

  @Test func noButtonsIsNotBadInput() {
    let (alert, issues) = Self.make { AlertData(title: "Saved", buttons: []) }
    #expect(alert.buttons.map(\.title) == ["OK"] && alert.buttons.map(\.role) == [.cancel])
    #expect(issues.isEmpty && alert.diagnostics.isEmpty)
  }

  @Test func aOneMegabyteTitleAndMessage() {
    let megabyte = String(repeating: "x", count: 1_000_000)
    let (alert, issues) = Self.make { AlertData(title: megabyte, message: megabyte) }
    #expect(alert.title.count == 1_000 && alert.title.hasSuffix("x…"))
    #expect(alert.message?.count == 20_000 && alert.message?.hasSuffix("x…") == true)
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"a reasonable length\": the title "
          + "has 1000000 characters; it is cut to 1000. Fix: keep the title short and put "
          + "details in the message.",
        "an alert breaks the rule \"a reasonable length\": the "
          + "message has 1000000 characters; it is cut to 20000. Fix: show long text somewhere "
          + "other than an alert.",
      ])
  }

  @Test func aOneMegabyteButtonTitleIsKept() {
    let megabyte = String(repeating: "y", count: 1_000_000)
    let (alert, issues) = Self.make { AlertData(title: "Long", buttons: [.default(megabyte)]) }
    // No rule limits a button title: it is kept whole, so it can still be tapped by title; the
    // terminal renderer cuts it to fit its box.
    #expect(alert.buttons.first?.title.count == 1_000_000)
    #expect(issues.isEmpty)
  }

  @Test func aGraphemeWithAMillionCombiningMarksIsCut() {
    let heavy = "e" + String(repeating: "\u{301}", count: 1_000_000)
    let line = #line + 1
    let (alert, issues) = Self.make { AlertData(title: heavy, message: heavy) }
    #expect(alert.title.unicodeScalars.count == 4_000 && alert.title.hasSuffix("…"))
    #expect(alert.message?.unicodeScalars.count == 80_000)
    #expect(alert.message?.hasSuffix("…") == true)
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"a reasonable length\": the title "
          + "has 1000001 Unicode scalars (combining marks included); it is cut to 4000. Fix: keep "
          + "the title short and put details in the message.",
        "an alert breaks the rule \"a reasonable length\": the "
          + "message has 1000001 Unicode scalars (combining marks included); it is cut to 80000. "
          + "Fix: show long text somewhere other than an alert.",
      ])
    #expect(issues.map(\.location.line) == [UInt(line), UInt(line)])
  }

  @Test func tooManyButtons() {
    let buttons = (1...200).map { AlertButton.default("B\($0)") } + [.cancel("Stop")]
    let line = #line + 1
    let (alert, issues) = Self.make { AlertData(title: "Many", buttons: buttons) }
    // Outcome: the first 63 and the cancel button, so the alert can still be backed out of.
    #expect(alert.buttons.map(\.title) == (1...63).map { "B\($0)" } + ["Stop"])
    #expect(alert.buttons.map(\.id) == Array(buttons.prefix(63).map(\.id)) + [buttons[200].id])
    #expect(alert.cancelButton?.title == "Stop")
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"a reasonable number of buttons\": "
          + "the alert has 201 buttons; it is shown with the first 63 and its cancel button. Fix: "
          + "offer at most 64 choices in an alert, and longer lists somewhere else."
      ])
    #expect(issues.map(\.location.line) == [UInt(line)])
  }

  @Test func tooManyButtonsWithoutACancelButtonKeepTheFirst() {
    let buttons = (1...65).map { AlertButton.default("B\($0)") }
    let (alert, issues) = Self.make { AlertData(title: "Many", buttons: buttons) }
    #expect(alert.buttons.map(\.title) == (1...64).map { "B\($0)" })
    #expect(issues.map { $0.message.contains("it is shown with the first 64.") } == [true])
  }

  @Test(.timeLimit(.minutes(1)))
  func repairingDuplicateTitlesTakesNearLinearTime() {
    let count = 20_000
    let titles = (2...count).map { "A (\($0))" } + Array(repeating: "A", count: count)
    let repaired = AlertValidation.distinctTitles(titles)
    #expect(Set(repaired).count == repaired.count)
    #expect(repaired.prefix(count) == titles.prefix(count))
    #expect(repaired[count] == "A (\(count + 1))")
    #expect(repaired.last == "A (\(2 * count - 1))")
  }

  @Test func repairedTitlesMatchTheRuleOnSeededInputs() {
    var generator = SplitMix64(seed: 16)
    for _ in 0..<500 {
      let titles = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
        ["A", "A (2)", "A (3)", "B", "A (2) (2)", "B (2)"].randomElement(using: &generator) ?? ""
      }
      #expect(AlertValidation.distinctTitles(titles) == Self.repairedNaively(titles))
    }
  }

  /// The rule as first written, one title at a time: the n-th copy of a title gets " (n)", or the
  /// next number no button has.
  static func repairedNaively(_ titles: [String]) -> [String] {
    var result = titles
    var seen: [String: Int] = [:]
    for index in result.indices {
      let title = result[index]
      let count = seen[title, default: 0] + 1
      seen[title] = count
      guard count > 1 else { continue }
      var suffix = count
      while result.contains("\(title) (\(suffix))") { suffix += 1 }
      result[index] = "\(title) (\(suffix))"
    }
    return result
  }

  @Test func diagnosticsNeutraliseTheTextTheyQuote() {
    let hostile = "\u{1B}]0;pwned\u{07}"
    let issues = IssueCollector()
    let node = EnvironmentNode("catalogue").child(hostile) {
      $0.issueReporter = IssueReporter { issues.append($0) }
    }
    node.withCurrent {
      _ = AlertData(title: "Quit?", buttons: [.cancel(hostile), .cancel(hostile)])
      node[\.showAlert](title: hostile)
      let host = AlertHost()
      let alert = AlertData(title: hostile)
      host.show(alert)
      host.show(alert)
    }
    // Two cancel buttons, two titles alike, no host (quoting the title and the node's name),
    // one value shown twice.
    #expect(issues.all.count == 4)
    #expect(issues.all[2].message.contains("called in node \"^[]0;pwned^G\""))
    for issue in issues.all {
      #expect(!issue.message.unicodeScalars.contains(where: DiagnosticText.needsNeutralising))
      #expect(issue.message.contains("\"^[]0;pwned^G\""))
    }
  }

  /// Control characters and escape sequences are data, not bad input: `AlertData` keeps them
  /// as given; presenters neutralise them when they draw (see the terminal half).
  @Test(arguments: [
    "\u{1B}[2J\u{1B}[H\u{1B}]0;owned\u{07}Delete everything?",
    "Bell\u{07}\u{08}\u{08}\u{7F} and NUL\u{0}",
    "C1 \u{9B}31m and \u{85} next line",
    "Bidi \u{202E}eteleD\u{202C} and \u{2066}isolate\u{2069}",
    "Line\r\nbreaks\u{2028}and\ttabs",
  ])
  func controlCharactersAndEscapeSequencesAreKept(_ text: String) {
    let (alert, issues) = Self.make {
      AlertData(title: text, message: text, buttons: [.default(text), .cancel()])
    }
    #expect(alert.title == text && alert.message == text && alert.buttons[0].title == text)
    #expect(issues.isEmpty && alert.diagnostics.isEmpty)
  }

  // MARK: Text fields

  @Test func noTitleAndNoFieldLabel() {
    let line = #line + 1
    let (alert, issues) = Self.make { AlertData(title: "", textFields: [AlertTextField("")]) }
    #expect(alert.title == "Alert")
    #expect(alert.textFields.map(\.label) == ["Field 1"])
    #expect(alert.diagnostics.map(\.rule) == [.titleOrMessage, .textFieldLabels])
    #expect(
      issues.map(\.message).last
        == "an alert breaks the rule \"every text field has a label\": text field 1 has an "
        + "empty label; it is shown as \"Field 1\". Fix: give every text field a label that says "
        + "what to type, such as \"Name\".")
    #expect(issues.allSatisfy { $0.location.line == UInt(line) })
  }

  @Test func twoTextFieldsWithOneLabel() async throws {
    let (alert, issues) = Self.make {
      AlertData(
        title: "Rename",
        textFields: [AlertTextField("Name", text: "a"), AlertTextField("Name", text: "b")])
    }
    #expect(alert.textFields.map(\.label) == ["Name", "Name (2)"])
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"distinct text field labels\": two text fields are labelled "
          + "\"Name\"; the later one is shown as \"Name (2)\" so each can be told apart and typed "
          + "into by label. Fix: give each text field its own label."
      ])
    // Outcome: each field keeps its identity and text, and is answered by its new label.
    let host = AlertHost()
    let outcomes = Outcomes()
    host.show(alert) { outcomes.append($0) }
    try host.tap(alert.buttons[0], of: alert, texts: ["first", "second"])
    #expect(outcomes.all.first?.tappedButton?.text(of: "Name (2)") == "second")
  }

  @Test func tooManyTextFields() {
    let (alert, issues) = Self.make {
      AlertData(title: "Form", textFields: (1...10).map { AlertTextField("Field \($0)") })
    }
    #expect(alert.textFields.map(\.label) == (1...8).map { "Field \($0)" })
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"a reasonable number of text fields\": the alert has 10 text "
          + "fields; it is shown with the first 8. Fix: ask for at most 8 values in an alert, and "
          + "for more somewhere else."
      ])
  }

  @Test func controlCharactersInTheTextAFieldStartsWith() {
    let (alert, issues) = Self.make {
      AlertData(title: "Rename", textFields: [AlertTextField("Name", text: "a\tb\u{1B}[31mc\r\nd")])
    }
    #expect(alert.textFields.map(\.text) == ["a b[31mc d"])
    #expect(
      issues.map(\.message) == [
        "an alert breaks the rule \"field text without control characters\": the text of text "
          + "field 1 holds 4 control characters; line breaks and tabs become spaces and the others "
          + "are left out. Fix: pass one line of plain text: a field holds no line breaks, tabs "
          + "or escapes."
      ])
  }

  @Test func controlCharactersInTypedText() throws {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let host = catalogue.installAlertHost()
    let line = #line + 1
    let alert = AlertData(title: "Rename", textFields: [AlertTextField("Name")])
    let outcomes = Outcomes()
    try catalogue.withCurrent {
      host.show(alert) { outcomes.append($0) }
      try host.tap(alert.buttons[0], of: alert, texts: ["Ada\u{0}\n"])
    }
    #expect(
      issues.all.map(\.message) == [
        "the alert \"Rename\" was answered with text that breaks the rule \"field text without "
          + "control characters\": the text entered in the field \"Name\" holds 2 control "
          + "characters; line breaks and tabs become spaces and the others are left out. Fix: pass "
          + "one line of plain text: a field holds no line breaks, tabs or escapes."
      ])
    #expect(issues.all.map(\.location.line) == [UInt(line)])
    // Outcome: answered, with the text repaired.
    #expect(outcomes.all.first?.tappedButton?.text(of: "Name") == "Ada ")
  }

  @Test func anOverlongTypedText() throws {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let alert = AlertData(title: "Note", textFields: [AlertTextField("Body")])
    let tap = try #require(
      catalogue.withCurrent {
        alert.tapOfButton(at: 0, texts: [String(repeating: "x", count: 5_000)])
      })
    #expect(tap.text(of: "Body") == String(repeating: "x", count: 4_095) + "…")
    #expect(
      issues.all.map(\.message) == [
        "the alert \"Note\" was answered with text that breaks the rule \"a reasonable "
          + "length\": the text entered in the field \"Body\" has 5000 characters; it is cut to "
          + "4096. Fix: keep a field's text to one line of a reasonable length."
      ])
  }

  // MARK: Answers that do not fit

  @Test func aStaleTap() async throws {
    let host = AlertHost()
    let runs = Counter()
    let first = AlertData(title: "First", buttons: [.default("Go") { runs.increment() }])
    let second = AlertData(title: "Second")
    let outcomes = Outcomes()
    host.show(first) { outcomes.append($0) }
    host.show(second)
    try await host.tapAndWait(first.buttons[0], of: first)

    await #expect(
      throws: PresentationError.notCurrent(first.id, title: "First", current: second.id)
    ) {
      try await host.tapAndWait(first.buttons[0], of: first)
    }
    let error = PresentationError.notCurrent(first.id, title: "First", current: second.id)
    #expect(
      error.description
        == "\(first.id) \"First\" is not the one shown (\(second.id) is); it was already "
        + "answered, replaced or withdrawn, so the answer changes nothing. Answer the host's "
        + "current item.")
    // Outcome: nothing changes.
    #expect(runs.count == 1 && outcomes.all.count == 1)
    #expect(host.current?.id == second.id && host.pendingCount == 0)
  }

  @Test func aDoubleTap() async throws {
    let host = AlertHost()
    let runs = Counter()
    let alert = AlertData(title: "Once", buttons: [.default("Go") { runs.increment() }])
    let outcomes = Outcomes()
    let resolved = await withCheckedContinuation { continuation in
      host.show(alert) { outcome in
        outcomes.append(outcome)
        continuation.resume(returning: outcome)
      }
      do throws(PresentationError) {
        try Self.tapWithoutWaiting(alert.buttons[0], of: alert, in: host)
        try Self.tapWithoutWaiting(alert.buttons[0], of: alert, in: host)
        Issue.record("the second tap was accepted")
      } catch {
        #expect(error == .notCurrent(alert.id, title: "Once", current: nil))
      }
    }
    #expect(resolved.tappedButton?.title == "Go")
    #expect(runs.count == 1 && outcomes.all.count == 1)
  }

  @Test func aButtonTheAlertDoesNotHave() throws {
    let host = AlertHost()
    let alert = AlertData(title: "Mine", buttons: [.default("Yes"), .cancel()])
    host.show(alert)
    do {
      try host.tap(AlertButton("Yes"), of: alert)
      Issue.record("a stranger's button was accepted")
    } catch {
      #expect(
        error.description
          == "\(alert.id) \"Mine\" has no button \"Yes\"; the answer changes nothing. Answer "
          + "with one of the item's own buttons.")
    }
    #expect(host.current?.id == alert.id)
  }

  @Test func aTapAfterTheHostIsGone() async {
    let runs = Counter()
    let alert = AlertData(title: "Orphan", buttons: [.default("Go") { runs.increment() }])
    let presenter = LaterPresenter()
    var host: AlertHost? = AlertHost(presenter: presenter)
    let action = host.map(ShowAlertAction.init(host:))
    let waiter = Task { await action?.ask(alert) }
    await eventually("the alert is presented") { presenter.hasPending }
    host = nil

    // Outcome: the awaiter resolves at once; the late tap reaches nothing and runs nothing.
    #expect(await waiter.value == .dropped(.hostDeallocated))
    #expect(presenter.tapFirstButton() == false)
    #expect(runs.count == 0)
    // Showing through the stale action resolves at once, too.
    #expect(await action?.ask(AlertData(title: "Late")) == .dropped(.hostDeallocated))
  }

  @Test func aDismissalOfAnAlertNotShown() {
    let host = AlertHost()
    let shown = AlertData(title: "Shown")
    let waiting = AlertData(title: "Waiting")
    host.show(shown)
    host.show(waiting)
    #expect(throws: PresentationError.notCurrent(waiting.id, title: "Waiting", current: shown.id)) {
      try host.dismiss(waiting)
    }
    #expect(host.current?.id == shown.id && host.pending.map(\.id) == [waiting.id])
  }

  // MARK: No host

  @Test func showingWithNoHost() async {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let line = #line + 2
    let outcome = await catalogue.withCurrent {
      await catalogue[\.showAlert].ask(title: "Nobody listens")
    }
    #expect(outcome == .dropped(.noHost))
    #expect(
      issues.all.map(\.message) == [
        "The alert \"Nobody listens\" was dropped: no host is installed above the node this "
          + "action was read from (it was called in node \"catalogue\"; read with a node's "
          + "subscript, an action does not know that node: read it with "
          + "`@Environment(\\.showAlert)`, or bind it with `bound(to: node)`, to have it named "
          + "here). Install a host with `node.installAlertHost()` on your root node, or an "
          + "AlertRecorder in tests."
      ])
    #expect(issues.all.map(\.location.line) == [UInt(line)])
    #expect(issues.all.map(\.location.fileID) == [#fileID])

    // Fire and forget: the same report, at its own line.
    let fireLine = #line + 1
    catalogue.withCurrent { catalogue[\.showAlert](title: "Nobody listens either") }
    #expect(issues.all.last?.location.line == UInt(fireLine))
  }

  @Test func showingAToastWithNoHost() async {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let line = #line + 1
    let outcome = await catalogue.withCurrent { await catalogue[\.showToast].ask(Toast("Saved")) }
    #expect(outcome == .dropped(.noHost))
    #expect(
      issues.all.map(\.message) == [
        "The toast \"Saved\" was dropped: no host is installed above the node this action was "
          + "read from (it was called in node \"catalogue\"; read with a node's subscript, an "
          + "action does not know that node: read it with `@Environment(\\.showToast)`, or bind "
          + "it with `bound(to: node)`, to have it named here). Install a host with "
          + "`node.installToastHost()` on your root node."
      ])
    #expect(issues.all.map(\.location.line) == [UInt(line)])
  }

  // MARK: Other documented misuse

  @Test func aToastWithADurationThatIsNotPositive() {
    let issues = IssueCollector()
    let catalogue = Self.node(collecting: issues)
    let line = #line + 1
    let toast = catalogue.withCurrent { Toast("Copied", duration: .seconds(-1)) }
    #expect(toast.duration == Toast.defaultDuration)
    #expect(
      issues.all.map(\.message) == [
        "a toast made at \(Self.site(line)) has the duration \(Duration.seconds(-1)), which is "
          + "not positive; it shows for \(Toast.defaultDuration) instead. Fix: pass a positive "
          + "duration."
      ])
  }

  @Test func aNegativeQueueBoundCountsAsZero() {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: -5))
    #expect(host.policy.maximumPending == 0)
    let outcomes = Outcomes()
    host.show(AlertData(title: "Shown"))
    host.show(AlertData(title: "Dropped")) { outcomes.append($0) }
    #expect(outcomes.all == [.dropped(.queueFull(limit: 0))])
  }

  @Test func aCustomActionThatAnswersTwiceOrNever() async {
    let twice = ShowAlertAction { alert, resolve in
      resolve(.dismissed)
      resolve(.dropped(.busy))  // ignored: the first answer wins
    }
    #expect(await twice.ask(title: "Twice") == .dismissed)
    let never = ShowAlertAction { _, _ in }
    #expect(await never.ask(title: "Never") == .dropped(.unanswered))
  }
}

extension BadInputCatalogueTests {
  /// A root of its own — no host anywhere above it, whatever other tests install — whose
  /// issues go to `issues`.
  static func node(collecting issues: IssueCollector) -> EnvironmentNode {
    EnvironmentNode("catalogue").child("catalogue") {
      $0.issueReporter = IssueReporter { issues.append($0) }
    }
  }

  /// Makes an alert in a node that collects issues; returns it and the issues.
  static func make(_ body: () -> AlertData) -> (AlertData, [EnvironmentIssue]) {
    let issues = IssueCollector()
    let alert = node(collecting: issues).withCurrent(body)
    return (alert, issues.all)
  }

  /// Taps with the synchronous form, whose action runs in a new task.
  static func tapWithoutWaiting(
    _ button: AlertButton, of alert: AlertData, in host: AlertHost
  ) throws(PresentationError) {
    try host.tap(button, of: alert)
  }
}

/// A presenter that holds what it was shown, and its host weakly, to answer later.
final class LaterPresenter: Presenter, Sendable {
  private struct Pending {
    weak var host: AlertHost?
    var alert: AlertData
  }

  private let pending = Lock<Pending?>(nil)

  var hasPending: Bool { pending.withLock { $0 != nil } }

  func present(_ alert: AlertData, in host: AlertHost) {
    pending.withLock { $0 = Pending(host: host, alert: alert) }
  }

  func withdraw(_ alert: AlertData, from host: AlertHost) {}

  /// Taps the first button of what it was shown; `false` when there is no host to tap.
  func tapFirstButton() -> Bool {
    guard let (host, alert) = pending.withLock({ $0.map { ($0.host, $0.alert) } }),
      let host
    else { return false }
    return (try? host.tap(alert.buttons[0], of: alert)) != nil
  }
}
