import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing

@testable import MilieuTesting

@Suite struct RecorderTypingTests {
  private func askToSignIn() async -> AlertOutcome {
    await EnvironmentNode.current[\.showAlert].ask(
      AlertData(
        title: "Sign in to Sync",
        textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("Password")],
        buttons: [.default("Sign In"), .cancel()]))
  }

  @Test func typedTextReachesTheOutcomeWithTheTap() async throws {
    try await withAlertRecorder { alerts in
      let outcome = Task { await askToSignIn() }
      let alert = try await alerts.next()
      #expect(alert.textFields.map(\.label) == ["Email", "Password"])
      try alerts.type("hunter2", into: "password")  // letter case is ignored when one matches
      try alerts.type("first", into: "Email")
      try alerts.type("grace@example.com", into: "Email")  // typing again replaces
      try await alerts.tap("Sign In")
      let tap = try #require(await outcome.value.tappedButton)
      #expect(tap.text(of: "Email") == "grace@example.com")
      #expect(tap.text(of: "Password") == "hunter2")
    }
  }

  @Test func aFieldNothingWasTypedIntoKeepsItsText() async throws {
    try await withAlertRecorder { alerts in
      let outcome = Task { await askToSignIn() }
      try await alerts.next()
      try alerts.type("hunter2", into: "Password")
      try await alerts.tap("Sign In")
      #expect(await outcome.value.tappedButton?.text(of: "Email") == "ada@example.com")
    }
  }

  @Test func typingWhatNoFieldTakesThrowsAndSaysWhy() async throws {
    try await withAlertRecorder { alerts in
      // With no alert, whether the field is secure is unknown: the text is not quoted.
      #expect(
        throws: AlertRecorderError.noAlert(request: #"type(into: "Name")"#, shownSoFar: [])
      ) {
        try alerts.type("x", into: "Name")
      }
      let outcome = Task { await askToSignIn() }
      try await alerts.next()
      do throws(AlertRecorderError) {
        try alerts.type("Ada", into: "Name")
        Issue.record("typing into a field the alert does not have was accepted")
      } catch {
        #expect(
          error.description
            == "type(into: \"Name\"): the alert \"Sign in to Sync\" has no text field \"Name\"; "
            + "its text fields are \"Email\", \"Password\".")
      }
      try await alerts.dismiss()
      #expect(await outcome.value == .dismissed)
    }
    #expect(
      AlertRecorderError.noSuchTextField("Name", alert: "Saved", fields: []).description
        == "type(into: \"Name\"): the alert \"Saved\" has no text field \"Name\"; it has no text "
        + "fields.")
    #expect(
      AlertRecorderError.ambiguousTextField("name", alert: "A", matches: ["Name", "NAME"])
        .description
        == "type(into: \"name\"): the alert \"A\" has several text fields that match \"name\" when "
        + "letter case is ignored: \"Name\", \"NAME\". Use the exact label.")
  }

  /// Types `text` into the sign-in alert's field `label`, which must fail the test with a message
  /// that starts with `failure` and never quotes `secret`; then signs in.
  ///
  /// - Returns: The text the tap carries for the field.
  private func typeBreakingARule(
    _ text: String, into label: String, failsWith failure: String, secret: String
  ) async throws -> String? {
    try await withAlertRecorder { alerts in
      let outcome = Task { await askToSignIn() }
      try await alerts.next()
      withKnownIssue {
        try? alerts.type(text, into: label)
      } matching: { issue in
        let message = issue.comments.map(\.rawValue).joined()
        return message.hasPrefix(failure) && !message.contains(secret)
          && issue.sourceLocation?.fileID == #fileID
      }
      try await alerts.tap("Sign In")
      return await outcome.value.tappedButton?.text(of: label)
    }
  }

  @Test func controlCharactersInTypedTextFailTheTestAndAreRepaired() async throws {
    let typed = try await typeBreakingARule(
      "grace@example.com\n", into: "Email",
      failsWith:
        "type(\"grace@example.com\\n\", into: \"Email\"): the text breaks the rule \"field text "
        + "without control characters\": the text entered in the field \"Email\" holds 1 "
        + "control character;",
      secret: "\n")
    #expect(typed == "grace@example.com ")
  }

  @Test func textTypedIntoASecureFieldIsNeverQuotedInAFailure() async throws {
    let typed = try await typeBreakingARule(
      "hunter2\n", into: "Password",
      failsWith:
        "type((hidden), into: \"Password\"): the text breaks the rule \"field text without "
        + "control characters\"",
      secret: "hunter2")
    #expect(typed == "hunter2 ")
  }

  /// A long text breaking a rule is quoted by its first 40 characters, escaped, and its length:
  /// the failure does not repeat 5,000 characters, and a line break shows as one.
  @Test func aLongTypedTextIsQuotedByItsBeginning() async throws {
    try await withAlertRecorder { alerts in
      let outcome = Task { await askToSignIn() }
      try await alerts.next()
      let text = "line one\nline two\t" + String(repeating: "x", count: 4_982)
      withKnownIssue {
        try? alerts.type(text, into: "Email")
      } matching: { issue in
        let message = issue.comments.map(\.rawValue).joined()
        return message.hasPrefix(
          "type(\"line one\\nline two\\t" + String(repeating: "x", count: 22)
            + "…\" (5000 characters), into: \"Email\"): the text breaks the rule")
          && message.count < 500
      }
      try await alerts.dismiss()
      _ = await outcome.value
    }
  }
}
