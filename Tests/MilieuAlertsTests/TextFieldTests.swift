@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Testing

@testable import MilieuAlerts

@Suite struct TextFieldTests {
  private func signIn() -> AlertData {
    AlertData(
      title: "Sign in to Sync",
      textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("Password")],
      buttons: [.default("Sign In"), .cancel()])
  }

  @Test func theOutcomeCarriesWhatWasEnteredWithTheTappedButton() async throws {
    let host = AlertHost()
    let alert = signIn()
    let outcome = Task { await host.outcome(of: alert) }
    await eventually("the alert is shown") { host.current != nil }
    try host.tap(alert.buttons[0], of: alert, texts: ["grace@example.com", "hunter2"])

    let tap = try #require(await outcome.value.tappedButton)
    #expect(tap.title == "Sign In")
    #expect(tap.text(of: "Email") == "grace@example.com")
    #expect(tap.text(of: "Password") == "hunter2")
    #expect(tap.text(of: "Name") == nil)
    #expect(tap.textFields.map(\.id) == alert.textFields.map(\.id))
    // A secure field's text never shows in a description, which logs and reports print.
    #expect(
      tap.description == "tapped Sign In, Email: \"grace@example.com\", Password: (hidden)")
  }

  @Test func aSecureFieldsTextIsNeverPrintedDumpedOrDescribed() throws {
    let password = AlertTextField("Password", text: "hunter2", isSecure: true)
    let alert = AlertData(
      title: "Sign in to Sync", textFields: [AlertTextField("Email"), password],
      buttons: [.default("Sign In"), .cancel()])
    let tap = try #require(alert.tapOfButton(at: 0, texts: ["ada@example.com", "hunter2"]))
    let outcome = AlertOutcome.answered(tap)
    let state = AlertState<Int>(title: "Sign in", textFields: [password])
    func dumped(_ value: some Any) -> String {
      var text = ""
      dump(value, to: &text)
      return text
    }
    let printed = [
      "\(password)", String(reflecting: password), dumped(password), "\([password])",
      "\(tap)", String(reflecting: tap), dumped(tap), "\(tap.textFields)",
      String(reflecting: tap.textFields), "\(alert)", String(reflecting: alert), dumped(alert),
      "\(outcome)", dumped(outcome), "\(state)", dumped(state),
    ]
    for text in printed { #expect(!text.contains("hunter2"), "\(text)") }
    #expect("\(password)" == "Password: (hidden)")
    #expect(
      String(reflecting: password) == #"AlertTextField("Password", text: (hidden), isSecure: true)"#
    )
    #expect(dumped(password).contains("- text: (hidden)"))
    // A field that is not secure shows its text, neutralised.
    let email = AlertTextField("Email", text: "ada@example.com\u{7}")
    #expect("\(email)" == #"Email: "ada@example.com^G""#)
    #expect(String(reflecting: email) == #"AlertTextField("Email", text: "ada@example.com^G")"#)
    #expect(dumped(email).contains("ada@example.com"))
  }

  @Test func aTapWithoutTextsKeepsWhatEachFieldStartsWith() async throws {
    let host = AlertHost()
    let alert = signIn()
    let outcomes = Outcomes()
    host.show(alert) { outcomes.append($0) }
    try await host.tapAndWait(alert.buttons[0], of: alert)
    #expect(outcomes.all.first?.tappedButton?.textFields.map(\.text) == ["ada@example.com", ""])
    #expect(alert.tapOfButton(at: 1)?.textFields.map(\.text) == ["ada@example.com", ""])
  }

  @Test func aTapMadeWithoutTextFieldsIsAcceptedAndCarriesNone() throws {
    let host = AlertHost()
    let alert = signIn()
    let outcomes = Outcomes()
    host.show(alert) { outcomes.append($0) }
    try host.answer(AlertTap(alert.buttons[1], at: 1), for: alert)
    #expect(outcomes.all.first?.tappedButton?.textFields == [])
    #expect(outcomes.all.first?.tappedButton?.text(of: "Email") == nil)
  }

  @Test func theWrongNumberOfTextsChangesNothing() throws {
    let host = AlertHost()
    let alert = signIn()
    host.show(alert)
    do {
      try host.tap(alert.buttons[0], of: alert, texts: ["only one"])
      Issue.record("a tap with one text for two fields was accepted")
    } catch {
      #expect(
        error.description
          == "\(alert.id) \"Sign in to Sync\" has no 1 text fields (it has 2); the answer "
          + "changes nothing. Answer with one of the item's own buttons.")
    }
    #expect(alert.tapOfButton(at: 0, texts: ["a", "b", "c"]) == nil)
    #expect(host.current?.id == alert.id)
  }

  @Test func aTapOfAnotherAlertsFieldsIsRefused() throws {
    let host = AlertHost()
    let alert = signIn()
    let lookalike = signIn()
    host.show(alert)
    let tap = try #require(lookalike.tapOfButton(at: 0, texts: ["a", "b"]))
    #expect(!alert.isValid(tap))
    #expect(throws: PresentationError.self) { try host.answer(tap, for: alert) }
    #expect(host.current?.id == alert.id)
  }

  @Test func anAlertStateDescribesItsTextFieldsAndSendsWhatWasEntered() async throws {
    enum Action: Sendable, Equatable { case rename, keep }
    let state = AlertState<Action>(
      title: "Rename", textFields: [AlertTextField("Name", text: "Roadmap")],
      buttons: [.default("Rename", send: .rename), .cancel("Keep", send: .keep)])
    // Equal when the fields say the same, whatever their identities.
    #expect(
      state
        == AlertState(
          title: "Rename", textFields: [AlertTextField("Name", text: "Roadmap")],
          buttons: [.default("Rename", send: .rename), .cancel("Keep", send: .keep)]))
    #expect(
      state
        != AlertState(
          title: "Rename", textFields: [.secure("Name", text: "Roadmap")],
          buttons: [.default("Rename", send: .rename), .cancel("Keep", send: .keep)]))
    #expect(state.map { $0 }.textFields.map(\.label) == ["Name"])

    let node = EnvironmentNode("app")
    let host = node.installAlertHost()
    let sent = Lock<[String]>([])
    let send: @Sendable (Action, [String]) -> Void = { action, texts in
      sent.withLock { $0.append("\(action) \(texts)") }
    }
    node[\.showAlert](state, send: send)
    let renamed = try #require(host.current)
    try host.tap(renamed.buttons[0], of: renamed, texts: ["Roadmap 2027"])
    node[\.showAlert](state, send: send)
    let kept = try #require(host.current)
    try host.dismiss(kept)
    #expect(sent.withLock { $0 } == ["rename [\"Roadmap 2027\"]", "keep [\"Roadmap\"]"])
  }
}
