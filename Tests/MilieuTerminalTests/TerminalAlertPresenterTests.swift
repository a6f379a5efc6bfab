import Milieu
import MilieuAlerts
import Testing

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

private func deleteNotes() -> AlertData {
  AlertData(
    title: "Delete 3 notes?", message: "This cannot be undone.",
    buttons: [.destructive("Delete"), .cancel()])
}

private func question(_ title: String) -> AlertData {
  AlertData(title: title, buttons: [.default("Yes"), .cancel("No")])
}

private func typeKeys(_ text: String, into terminal: PseudoTerminal) {
  _ = Array(text.utf8).withUnsafeBytes { write(terminal.controller, $0.baseAddress, $0.count) }
}

extension SerializedTerminalTests {
  @Suite("TerminalAlertPresenter, plain text")
  struct TerminalAlertPresenterPlainTests {
    @Test("present returns at once; the button the user names is tapped in the host")
    func tapsChosenButton() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = deleteNotes()
      let outcome = show(alert, in: host)
      // Nothing was typed yet, so `present` cannot have waited for the answer.
      #expect(host.current?.id == alert.id)
      #expect(terminal.waitFor("Your choice [1-2]: "))
      terminal.type("delete\n")
      #expect(await outcome.first() == .answered(try #require(alert.tapOfButton(at: 0))))
      #expect(host.current == nil)
      #expect(
        terminal.finish() == """
          Delete 3 notes?
          This cannot be undone.
            1) Delete (destructive)
            2) Cancel (cancel)
          Your choice [1-2]: delete

          """)
    }

    @Test("End of input taps the cancel button")
    func endOfInputCancels() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = deleteNotes()
      terminal.endInput()
      #expect(await host.outcome(of: alert) == .answered(try #require(alert.tapOfButton(at: 1))))
      _ = terminal.finish()
    }

    @Test("End of input dismisses an alert without a cancel button")
    func endOfInputDismisses() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      terminal.endInput()
      let alert = AlertData(title: "Keep which?", buttons: [.default("Mine"), .default("Theirs")])
      #expect(await host.outcome(of: alert) == .dismissed)
      _ = terminal.finish()
    }

    @Test("Queued alerts come one at a time, each outcome line before the next alert")
    func queuedAlerts() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let console = TerminalConsole(output: terminal.outputWrite)
      let (outcomes, collector) = AsyncStream.makeStream(of: AlertOutcome.self)
      for alert in [question("First?"), question("Second?")] {
        host.show(alert) { outcome in
          console.report(outcome, of: alert)
          collector.yield(outcome)
        }
      }
      #expect(host.pendingCount == 1)
      terminal.type("1\nno\n")
      var resolved = 0
      for await _ in outcomes {
        resolved += 1
        if resolved == 2 { break }
      }
      #expect(
        terminal.finish() == """
          First?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: 1
          First?: tapped Yes
          Second?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: no
          Second?: tapped No

          """)
    }

    @Test("A replaced alert is withdrawn mid-question and the new one is asked")
    func withdrawnByReplacement() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(
        policy: .replace, presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let old = question("Old?")
      let new = question("New?")
      let oldOutcome = show(old, in: host)
      #expect(terminal.waitFor("Your choice [1-2]: "))
      let newOutcome = show(new, in: host)
      #expect(await oldOutcome.first() == .dropped(.replaced(by: new.id)))
      #expect(terminal.waitFor("New?"))
      terminal.type("yes\n")
      #expect(await newOutcome.first() == .answered(try #require(new.tapOfButton(at: 0))))
      #expect(
        terminal.finish() == """
          Old?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: 
          New?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: yes

          """)
    }

    @Test("Cancelling the task that awaits an alert takes it down; the next one is asked")
    func cancelledTask() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let first = question("First?")
      let task = Task { await host.outcome(of: first) }
      #expect(terminal.waitFor("Your choice [1-2]: "))
      task.cancel()
      #expect(await task.value == .dropped(.cancelled))
      let second = question("Second?")
      let outcome = show(second, in: host)
      #expect(terminal.waitFor("Second?"))
      terminal.type("2\n")
      #expect(await outcome.first() == .answered(try #require(second.tapOfButton(at: 1))))
      _ = terminal.finish()
    }

    @Test("Two hosts on one terminal take turns")
    func twoHosts() async throws {
      let terminal = try PipedTerminal()
      let appHost = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let sheetHost = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let appOutcome = show(question("App?"), in: appHost)
      let sheetOutcome = show(question("Sheet?"), in: sheetHost)
      // Both hosts have their alert current; the terminal asks one after the other.
      #expect(appHost.current != nil && sheetHost.current != nil)
      terminal.type("1\n2\n")
      #expect(await appOutcome.first()?.tappedButton?.title == "Yes")
      #expect(await sheetOutcome.first()?.tappedButton?.title == "No")
      #expect(
        terminal.finish() == """
          App?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: 1
          Sheet?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: 2

          """)
    }

    @Test("A line written meanwhile goes on a line of its own, then the prompt again")
    func consoleDuringPrompt() async throws {
      let terminal = try PipedTerminal()
      let host = AlertHost(presenter: TerminalAlertPresenter(terminal: terminal.presenter))
      let alert = question("Sync now?")
      let outcome = show(alert, in: host)
      #expect(terminal.waitFor("Your choice [1-2]: "))
      TerminalConsole(output: terminal.outputWrite).writeLine("Synced 12 notes.")
      terminal.type("1\n")
      #expect(await outcome.first()?.tappedButton?.title == "Yes")
      #expect(
        terminal.finish() == """
          Sync now?
            1) Yes
            2) No (cancel)
          Your choice [1-2]: 
          Synced 12 notes.
          Your choice [1-2]: 1

          """)
    }

    @Test("A terminal that cannot be used is reported, and the alert is dismissed")
    func failure() async {
      let issues = IssueCollector()
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: Terminal(input: -1, output: -1)))
      let alert = question("Saved?")
      let outcome = await issues.node().withCurrent { await host.outcome(of: alert) }
      #expect(outcome == .dismissed)
      #expect(issues.all.count == 1)
      #expect(issues.all.first?.message.contains("could not ask \"Saved?\"") == true)
    }

    @Test("The report of a terminal that cannot be used neutralises the title it quotes")
    func failureWithHostileTitle() async {
      let issues = IssueCollector()
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: Terminal(input: -1, output: -1)))
      let alert = question("\u{1B}]0;pwned\u{07}")
      _ = await issues.node().withCurrent { await host.outcome(of: alert) }
      #expect(issues.all.first?.message.contains("could not ask \"^[]0;pwned^G\"") == true)
      #expect(
        issues.all.first?.message.unicodeScalars.contains(where: TextSanitizer.needsNeutralising)
          == false)
    }
  }

  @Suite("TerminalAlertPresenter, interactive")
  struct TerminalAlertPresenterInteractiveTests {
    @Test("Keys answer the box, and the terminal is restored before the outcome arrives")
    func keys() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      let output = OutputWatcher(terminal.controller)
      let before = terminal.attributes()
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let alert = deleteNotes()
      let outcome = show(alert, in: host)
      #expect(output.waitFor("[ 2 Cancel ]"))
      typeKeys("\t", into: terminal)
      #expect(output.waitFor("[ 1 Delete ]"))
      typeKeys("\r", into: terminal)
      #expect(await outcome.first() == .answered(try #require(alert.tapOfButton(at: 0))))
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("A withdrawn alert's box is erased and the terminal restored")
    func withdrawn() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      let output = OutputWatcher(terminal.controller)
      let before = terminal.attributes()
      let host = AlertHost(
        policy: .replace,
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let old = question("Old?")
      let new = question("New?")
      let oldOutcome = show(old, in: host)
      #expect(output.waitFor("[ 1 Yes ]"))
      let newOutcome = show(new, in: host)
      #expect(await oldOutcome.first() == .dropped(.replaced(by: new.id)))
      // The old box had 5 lines: back up 4, erase to the end of the screen, show the cursor.
      #expect(output.waitFor("\r\u{1B}[4A\u{1B}[J\u{1B}[?25h"))
      #expect(output.waitFor("New?"))
      typeKeys("\u{1B}", into: terminal)
      #expect(await newOutcome.first() == .answered(try #require(new.tapOfButton(at: 1))))
      #expect(terminal.attributes().modeFlags == before.modeFlags)
    }

    @Test("An issue reported on another descriptor of the box's terminal goes above the box")
    func issueAboveBox() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      // Standard error on the same terminal as the box.
      let errors = fcntl(terminal.terminal, F_DUPFD_CLOEXEC, 0)
      defer { close(errors) }
      let output = OutputWatcher(terminal.controller)
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let alert = deleteNotes()
      let outcome = show(alert, in: host)
      #expect(output.waitFor("[ 2 Cancel ]"))
      TerminalConsole(output: errors).issueReporter.report(
        EnvironmentIssue("a title \"\u{1B}]0;pwned\u{07}\"", at: alert.callSite))
      // The box (7 lines) is erased, the line written, neutralised, and the box drawn again below
      // it.
      #expect(
        output.waitFor(
          "\u{1B}[6A\u{1B}[Jwarning: \(alert.callSite): a title \"^[]0;pwned^G\"\r\r\n╭"))
      typeKeys("2", into: terminal)
      #expect(await outcome.first() == .answered(try #require(alert.tapOfButton(at: 1))))
      #expect(!output.text.contains("\u{1B}]0;pwned"))
    }

    @Test("A toast that arrives while the box is up is written above it")
    func toastAboveBox() async throws {
      let terminal = try PseudoTerminal(columns: 60, rows: 24)
      defer { terminal.close() }
      let output = OutputWatcher(terminal.controller)
      let host = AlertHost(
        presenter: TerminalAlertPresenter(terminal: terminal.makeTerminal()))
      let toasts = ToastHost(
        presenter: TerminalToastPresenter(terminal: terminal.makeTerminal()))
      let alert = deleteNotes()
      let outcome = show(alert, in: host)
      #expect(output.waitFor("[ 2 Cancel ]"))
      let toast = show(Toast("Copied", duration: .milliseconds(1)), in: toasts)
      // The box (7 lines) is erased, the toast written, and the box drawn again below it. (The
      // terminal turns each line feed into a carriage return and a line feed.)
      #expect(
        output.waitFor("\u{1B}[6A\u{1B}[Jℹ Copied\r\r\n╭"))
      #expect(await toast.first() == .answered(.expired))
      typeKeys("2", into: terminal)
      #expect(await outcome.first() == .answered(try #require(alert.tapOfButton(at: 1))))
    }
  }
}
