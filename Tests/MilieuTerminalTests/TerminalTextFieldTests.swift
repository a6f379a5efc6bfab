import Milieu
import MilieuAlerts
import Testing

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

private func signIn() -> AlertData {
  AlertData(
    title: "Sign in to Sync",
    textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("Password")],
    buttons: [.default("Sign In"), .cancel()])
}

private func typeKeys(_ text: String, into terminal: PseudoTerminal) {
  _ = Array(text.utf8).withUnsafeBytes { write(terminal.controller, $0.baseAddress, $0.count) }
}

extension SerializedTerminalTests {
  @Suite("Text fields, plain text")
  struct TextFieldPlainTests {
    @Test("One line is read for each field, then the button; the tap carries the text")
    func oneLinePerField() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = signIn()
      let outcome = show(alert, in: host)
      // An empty line keeps the text a field starts with; a secure line is never written back.
      terminal.type("\nhunter2\r\n1\n")
      let tap = try #require(await outcome.first()?.tappedButton)
      #expect(tap.title == "Sign In")
      #expect(tap.text(of: "Email") == "ada@example.com")
      #expect(tap.text(of: "Password") == "hunter2")
      let transcript = terminal.finish()
      #expect(
        transcript == """
          Sign in to Sync
            1) Sign In
            2) Cancel (cancel)
          Email [ada@example.com]: 
          Password (not shown): 
          Your choice [1-2]: 1

          """)
      #expect(!transcript.contains("hunter2"))
    }

    @Test("A line with a control character or over 4,096 characters is refused and asked again")
    func badLines() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = AlertData(
        title: "Rename", textFields: [AlertTextField("Name")], buttons: [.default("Rename")])
      let outcome = show(alert, in: host)
      terminal.type("Road\tmap\n" + String(repeating: "x", count: 4_097) + "\nRoadmap\n1\n")
      #expect(await outcome.first()?.tappedButton?.text(of: "Name") == "Roadmap")
      let transcript = terminal.finish()
      #expect(
        transcript.contains(
          "Name: Road map\nA field holds one line of plain text; that line holds a control "
            + "character, such as a tab or an escape. Type it again without.\nName: "))
      #expect(
        transcript.contains(
          "That text is 4097 characters long; a field holds at most 4096. Type it again, "
            + "shorter.\nName: Roadmap\n"))
    }

    @Test("End of input while the fields are read taps the cancel button")
    func endOfInput() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = signIn()
      terminal.type("grace@example.com\n")
      terminal.endInput()
      let tap = try #require(await host.outcome(of: alert).tappedButton)
      #expect(tap.title == "Cancel")
      _ = terminal.finish()
    }
  }

  @Suite("Text fields, interactive")
  struct TextFieldInteractiveTests {
    @Test("Keys and a paste fill in the fields, Enter signs in, and the terminal is restored")
    func typingAndPasting() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      let output = OutputWatcher(terminal.controller)
      let before = terminal.attributes()
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let alert = signIn()
      let outcome = show(alert, in: host)
      // Pastes are bracketed while the box is up.
      #expect(output.waitFor("\u{1B}[?2004h"))
      #expect(output.waitFor("Email    [ada@example.com▏"))
      // Backspace over "example.com", then a paste whose line break becomes a space.
      typeKeys(
        String(repeating: "\u{7F}", count: 11) + "\u{1B}[200~work\nplace\u{1B}[201~", into: terminal
      )
      #expect(output.waitFor("ada@work place▏"))
      #expect(output.waitFor("The pasted text held 1 control"))
      typeKeys("\t" + "s3cret" + "\r", into: terminal)
      let tap = try #require(await outcome.first()?.tappedButton)
      #expect(tap.title == "Sign In")
      #expect(tap.text(of: "Email") == "ada@work place")
      #expect(tap.text(of: "Password") == "s3cret")
      #expect(output.waitFor("\u{1B}[?2004l"))
      #expect(!output.text.contains("s3cret"))
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("A signal the program survives stops bracketed pastes once")
    func signalStopsBracketedPastesOnce() async {
      let result = await #expect(
        processExitsWith: .success, observing: [\.standardOutputContent]
      ) {
        signal(SIGTERM) { _ in }
        let terminal = try PseudoTerminal(columns: 60, rows: 24)
        let run = try TerminalUser.run(
          terminal, steps: [.waitFor("\u{1B}[?2004h"), .signal(SIGTERM)]
        ) {
          try terminal.makeTerminal().present(
            Fixtures.withFields(Fixtures.deleteNotes, ["Name"]))
        }
        let output = Array(run.output.utf8)
        var resets = 0
        var start = 0
        while let end = endOf(Array("\u{1B}[?2004l".utf8), in: output, from: start) {
          resets += 1
          start = end
        }
        print("\(run.result), \(resets) reset, \(run.failures)")
        exit(0)
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output == "interrupted, 1 reset, []\n")
    }

    @Test("Esc in a field taps the cancel button; what was typed goes with it")
    func escapeCancels() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      let output = OutputWatcher(terminal.controller)
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let outcome = show(signIn(), in: host)
      #expect(output.waitFor("Email    [ada@example.com▏"))
      typeKeys("1\u{1B}", into: terminal)
      let tap = try #require(await outcome.first()?.tappedButton)
      #expect(tap.title == "Cancel")
      #expect(tap.text(of: "Email") == "ada@example.com1")
    }
  }
}
