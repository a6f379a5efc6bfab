import Testing

@Suite("milieu-demo, scenarios answered through a pipe")
struct DemoScenarioTests {
  @Test("delete, answered with the button's title: the alert as text, then the outcome line")
  func deleteByTitle() throws {
    let run = try Demo.run(["--scenario", "delete"], input: "Delete\n")
    #expect(run.status == 0, "\(run)")
    #expect(run.standardError.isEmpty, "\(run)")
    #expect(
      run.standardOutput == """
        Delete 3 notes?
        "Standup", "Offsite" and "Budget" will be removed from Work. This cannot be
        undone.
          1) Delete (destructive)
          2) Cancel (cancel)
        Your choice [1-2]: Delete
        Deleted 3 notes from Work; 2 left.
        Delete 3 notes?: tapped Delete

        """)
  }

  @Test("delete, answered with a number")
  func deleteByNumber() throws {
    let run = try Demo.run(["--scenario", "delete"], input: "2\n")
    #expect(run.status == 0, "\(run)")
    #expect(run.outcomeLines == ["Delete 3 notes?: tapped Cancel"])
    #expect(!run.standardOutput.contains("Deleted"))
  }

  @Test("delete with no input at all: end of input cancels")
  func deleteAtEndOfInput() throws {
    let run = try Demo.run(["--scenario", "delete"])
    #expect(run.status == 0, "\(run)")
    #expect(run.outcomeLines == ["Delete 3 notes?: tapped Cancel"])
  }

  @Test("Input that cannot be read is reported, the alert dismissed, and the exit status is 1")
  func unreadableInput() throws {
    let run = try Demo.run(["--scenario", "delete"], inputPath: "/")
    #expect(run.status == 1, "\(run)")
    #expect(run.outcomeLines == ["Delete 3 notes?: dismissed"])
    #expect(run.standardError.contains("The terminal could not ask \"Delete 3 notes?\""))
  }

  @Test("A wrong answer is explained and asked again")
  func wrongAnswer() throws {
    let run = try Demo.run(["--scenario", "delete"], input: "maybe\n1\n")
    #expect(run.status == 0, "\(run)")
    #expect(
      run.lines.contains("Please answer with a number from 1 to 2 or one of: Delete, Cancel."))
    #expect(run.outcomeLines == ["Delete 3 notes?: tapped Delete"])
  }

  @Test("burst: three alerts queue; the conflict, of high priority, goes ahead of the warning")
  func burst() throws {
    let run = try Demo.run(["--scenario", "burst"], input: "1\n1\n2\n1\n")
    #expect(run.status == 0, "\(run)")
    #expect(
      run.outcomeLines == [
        "Synced with your other devices: tapped OK",
        "Back up your library?: tapped Back Up Now",
        "\"Roadmap\" changed on another device: tapped Use Theirs",
        "Folder \"Work\" is almost full: tapped OK",
      ])
    // Each alert is drawn only after the previous one's outcome line.
    let titles = [
      "Back up your library?", "\"Roadmap\" changed on another device",
      "Folder \"Work\" is almost full",
    ]
    for (title, outcome) in zip(titles, run.outcomeLines) {
      let drawn = try #require(run.lines.firstIndex(of: title))
      let reported = try #require(run.lines.firstIndex(of: outcome))
      #expect(reported < drawn)
    }
  }

  @Test("burst at end of input: cancel buttons are tapped; an alert without one is dismissed")
  func burstAtEndOfInput() throws {
    let run = try Demo.run(["--scenario", "burst"])
    #expect(run.status == 0, "\(run)")
    #expect(
      run.outcomeLines == [
        "Synced with your other devices: tapped OK",
        "Back up your library?: tapped Later",
        "\"Roadmap\" changed on another device: dismissed",
        "Folder \"Work\" is almost full: tapped OK",
      ])
  }

  @Test("retry: Retry runs the sync again until it succeeds, within the attempts allowed")
  func retry() throws {
    let run = try Demo.run(["--scenario", "retry"], input: "Retry\nretry\n")
    #expect(run.status == 0, "\(run)")
    #expect(run.outcomeLines == ["Sync failed: tapped Retry", "Sync failed: tapped Retry"])
    #expect(run.lines.contains { $0.hasSuffix("Attempt 2 of 3.") })
    #expect(run.lines.contains("\"Roadmap\" synced on attempt 3 of 3."))
  }

  @Test("retry, cancelled: the note is not synced")
  func retryCancelled() throws {
    let run = try Demo.run(["--scenario", "retry"])
    #expect(run.status == 0, "\(run)")
    #expect(run.outcomeLines == ["Sync failed: tapped Cancel"])
    #expect(run.lines.contains("\"Roadmap\" was not synced."))
  }

  @Test("sheet: the sheet's alert goes to the sheet's host, the library's to the app's")
  func sheet() throws {
    let run = try Demo.run(["--scenario", "sheet"], input: "\nShare\n")
    #expect(run.status == 0, "\(run)")
    #expect(
      run.lines.contains {
        $0.hasPrefix(
          "Share sheet: showAlert reaches the alert host installed on node \"sheet: Share\"")
      })
    #expect(
      run.lines.contains {
        $0.hasPrefix("Library: showAlert reaches the alert host installed on node \"app\"")
      })
    #expect(
      run.outcomeLines == [
        "Share \"Roadmap\"?: tapped Share, Email: \"sam@example.com\"",
        "Sharing is on for \"Roadmap\": tapped OK",
      ])
  }

  @Test("sheet: the recipient is typed into a text field, one line before the button")
  func sheetWithAnotherRecipient() throws {
    let run = try Demo.run(["--scenario", "sheet"], input: "ada@example.com\n1\n")
    #expect(run.status == 0, "\(run)")
    #expect(run.lines.contains("Email [sam@example.com]: ada@example.com"))
    #expect(
      run.outcomeLines == [
        "Share \"Roadmap\"?: tapped Share, Email: \"ada@example.com\"",
        "Sharing is on for \"Roadmap\": tapped OK",
      ])
    #expect(run.lines.contains("ada@example.com can read and edit it."))
  }

  @Test("toast: three toasts are shown one after the other, and each expires")
  func toast() throws {
    let run = try Demo.run(["--scenario", "toast"])
    #expect(run.status == 0, "\(run)")
    #expect(
      Array(run.lines.prefix(3)) == [
        "ℹ Library opened: 5 notes in 1 folder", "⚠ Folder \"Work\" is almost full",
        "✔ \"Roadmap\" saved",
      ])
    #expect(
      run.outcomeLines == [
        "Library opened: 5 notes in 1 folder: expired",
        "Folder \"Work\" is almost full: expired",
        "\"Roadmap\" saved: expired",
      ])
  }

  @Test("No arguments: a menu of the scenarios, answered like any alert, then the scenario")
  func menu() throws {
    let run = try Demo.run([], input: "1\nDelete\nQuit\n")
    #expect(run.status == 0, "\(run)")
    #expect(run.lines.contains("Milieu demo: choose a scenario"))
    #expect(run.lines.contains("  6) Quit (cancel)"))
    #expect(
      run.outcomeLines == [
        "Milieu demo: choose a scenario: tapped delete", "Delete 3 notes?: tapped Delete",
        "Milieu demo: choose a scenario: tapped Quit",
      ])
  }

  @Test("The menu comes back after each scenario, which starts afresh, until Quit")
  func menuAfterEachScenario() throws {
    let run = try Demo.run([], input: "1\nDelete\ndelete\n2\nretry\nCancel\n6\nsheet\n")
    #expect(run.status == 0, "\(run)")
    #expect(
      run.outcomeLines == [
        "Milieu demo: choose a scenario: tapped delete", "Delete 3 notes?: tapped Delete",
        "Milieu demo: choose a scenario: tapped delete", "Delete 3 notes?: tapped Cancel",
        "Milieu demo: choose a scenario: tapped retry", "Sync failed: tapped Cancel",
        "Milieu demo: choose a scenario: tapped Quit",
      ])
    #expect(run.lines.filter { $0 == "Deleted 3 notes from Work; 2 left." }.count == 1)
    // Quit ends the demo: what follows it is never read.
    #expect(run.lines.filter { $0 == "Milieu demo: choose a scenario" }.count == 4, "\(run)")
  }

  // `print` writes to stdio's buffer, which holds a file's or a pipe's output until it is full
  // or the program ends; the terminal presenter writes straight to the descriptor. The tour, printed
  // first, came out after every alert.
  @Test(
    "Piped or in a file, what the demo printed before an alert stays before it",
    arguments: [false, true])
  func printedLinesStayBeforeTheAlerts(toFile: Bool) throws {
    let run = try Demo.run([], input: "1\nDelete\n", outputToFile: toFile)
    #expect(run.status == 0, "\(run)")
    let tour = try #require(run.lines.firstIndex { $0.hasPrefix("Milieu demo: a notes app") })
    let tourEnd = try #require(run.lines.firstIndex { $0.hasPrefix("milieu-demo --tree draws") })
    let menu = try #require(run.lines.firstIndex(of: "Milieu demo: choose a scenario"))
    let delete = try #require(run.lines.firstIndex(of: "Delete 3 notes?"))
    #expect(tour < tourEnd && tourEnd < menu && menu < delete, "\(run)")
  }

  @Test("No arguments: first, what the environment does for the app's service graph")
  func serviceGraphTour() throws {
    let run = try Demo.run([])
    #expect(run.status == 0, "\(run)")
    for line in [
      "The app sets syncAttempts to 5; folder \"Work\" overrides it with 3 for its subtree alone.",
      "  at the library: SyncClient(SyncServer(fails 2 times), 5 attempts)",
      "  at the note:    SyncClient(SyncServer(fails 2 times), 3 attempts), built for the folder",
    ] {
      #expect(run.lines.contains(line), "missing: \(line)\n\(run)")
    }
    let explanation = run.lines.first { $0.hasPrefix("  syncAttempts at node \"note: Roadmap\"") }
    #expect(
      explanation?.contains(
        "is 3, set on node \"folder: Work\" at MilieuDemo/LibraryService.swift:") == true)
    #expect(explanation?.contains("It shadows 5 set on node \"app\"") == true, "\(run)")
  }

  @Test("No arguments and no input: the menu is cancelled and the demo ends")
  func menuAtEndOfInput() throws {
    let run = try Demo.run([])
    #expect(run.status == 0, "\(run)")
    #expect(run.outcomeLines == ["Milieu demo: choose a scenario: tapped Quit"])
  }
}
