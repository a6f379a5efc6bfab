import Testing

@Suite("milieu-demo, command line")
struct DemoCommandLineTests {
  @Test("--list prints the scenario names, one per line")
  func list() throws {
    let run = try Demo.run(["--list"])
    #expect(run.status == 0, "\(run)")
    #expect(run.standardOutput == "delete\nretry\nburst\ntoast\nsheet\n")
    #expect(run.standardError.isEmpty)
  }

  @Test("An unknown scenario is a usage error that names the valid ones")
  func unknownScenario() throws {
    let run = try Demo.run(["--scenario", "nope"])
    #expect(run.status == 2, "\(run)")
    #expect(run.standardOutput.isEmpty)
    #expect(
      run.standardError.hasPrefix(
        "milieu-demo: unknown scenario 'nope'. Valid scenarios: delete, retry, burst, toast, "
          + "sheet.\n"))
  }

  @Test(
    "Unknown options, a missing name and two commands are usage errors",
    arguments: [["--frobnicate"], ["extra"], ["--scenario"], ["--list", "--tree"]])
  func usageErrors(arguments: [String]) throws {
    let run = try Demo.run(arguments)
    #expect(run.status == 2, "\(run)")
    #expect(run.standardOutput.isEmpty)
    #expect(run.standardError.hasPrefix("milieu-demo: "))
    #expect(run.standardError.contains("Run 'milieu-demo --help' for usage."))
  }

  @Test("A usage error neutralises the argument it quotes")
  func hostileArgument() throws {
    let run = try Demo.run(["\u{1B}]0;pwned\u{07}"])
    #expect(run.status == 2, "\(run)")
    #expect(run.standardError.hasPrefix("milieu-demo: unknown argument '^[]0;pwned^G'."))
    #expect(!run.standardError.contains("\u{1B}"))
  }

  @Test("--help explains the options, the scenarios, the keys and piped use")
  func help() throws {
    let run = try Demo.run(["--help"])
    #expect(run.status == 0, "\(run)")
    for text in [
      "--scenario NAME", "--list", "--tree", "NO_COLOR", "End of input counts as cancel",
      "delete", "retry", "burst", "toast", "sheet",
    ] {
      #expect(run.standardOutput.contains(text), "missing \(text)")
    }
  }

  @Test("--tree prints the environment tree with provenance")
  func tree() throws {
    let run = try Demo.run(["--tree"])
    #expect(run.status == 0, "\(run)")
    #expect(run.lines.first == "node \"app\"")
    for text in [
      "└─ node \"library\"", "node \"folder: Work\"", "node \"note: Roadmap\"",
      "node \"sheet: Share\"", "syncAttempts = 3  (MilieuDemo/LibraryService.swift:",
      "syncAttempts at node \"note: Roadmap\" is 3, set on node \"folder: Work\"",
      "↳ keeps derived syncClient",
      "syncClient at node \"note: Roadmap\" is SyncClient(SyncServer(fails 2 times), 3 attempts), derived (one per inputs) from syncServer and syncAttempts; kept with syncAttempts, set on node \"folder: Work\"",
      "The share sheet's showAlert reaches the alert host installed on node \"sheet: Share\"",
    ] {
      #expect(run.standardOutput.contains(text), "missing \(text)")
    }
  }
}
