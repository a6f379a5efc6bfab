import Milieu
import MilieuAlerts
import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `milieu-demo`: reads the command line and runs what it asks for.
@main
enum MilieuDemo {
  static func main() async {
    // Writing to a pipe whose reader left (`milieu-demo --list | head -1`) is an error to
    // ignore, not a reason to die.
    signal(SIGPIPE, SIG_IGN)
    openClosedStandardDescriptors()
    let command: DemoCommand
    do throws(DemoCommand.UsageError) {
      command = try DemoCommand.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
      writeError("milieu-demo: \(error)\nRun 'milieu-demo --help' for usage.")
      exit(2)
    }
    // Issues are reported through the process-wide root, which every node the demo makes
    // descends from, and which code running outside any node's scope reads.
    let issues = IssueCounter()
    EnvironmentNode.root.set(\.issueReporter, to: issues.reporter)
    let app = await run(command)
    // The app lives as long as the process, as an app does. Every alert is resolved by now, but
    // the thread that answered the last one may still be letting go of its host; exiting while
    // the app holds the hosts keeps that from ever being half done.
    withExtendedLifetime(app) {
      exit(issues.issues > 0 ? 1 : 0)
    }
  }

  /// Runs a command.
  ///
  /// - Returns: The app the command ran, if it ran one.
  static func run(_ command: DemoCommand) async -> NotesApp? {
    switch command {
    case .help:
      print(HelpText.text)
    case .list:
      for scenario in Scenario.allCases { print(scenario.rawValue) }
    case .tree:
      printTree()
    case .scenario(let scenario):
      let app = NotesApp(terminal: Terminal())
      await app.run(scenario)
      return app
    case .menu:
      var app = NotesApp(terminal: Terminal())
      for line in ServiceGraphTour.lines(for: app) { print(line) }
      while let scenario = await app.chooseScenario() {
        await app.run(scenario)
        // Each scenario starts from the app as it first was: notes a scenario deleted, or a
        // sync server it wore down, would leave the next run of it nothing to show.
        app = NotesApp(terminal: Terminal())
      }
      return app
    }
    return nil
  }

  /// Prints the environment tree of the app, with the share sheet open, and where a few values
  /// come from.
  static func printTree() {
    let app = NotesApp(terminal: Terminal())
    let sheet = app.library.makeShareSheet(for: "Roadmap")
    let note = app.library.work.roadmap
    _ = note.node[\.syncClient]  // built, so that the tree shows where it is kept
    print(app.root.treeDescription())
    print()
    print(note.node.explain(\.syncAttempts))
    print(note.node.explain(\.syncClient))
    print(note.node.explain(\.toastDuration))
    print("The note's showAlert reaches \(note.node.alertHostProvenance).")
    print("The share sheet's showAlert reaches \(sheet.node.alertHostProvenance).")
    withExtendedLifetime(sheet) {}
  }

  /// Opens `/dev/null` on standard input, output or error if the demo was started with one of
  /// them closed, so that no descriptor the demo opens later takes its number.
  private static func openClosedStandardDescriptors() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 {
      let null = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
      if null >= 0 && null != descriptor {
        _ = dup2(null, descriptor)
        _ = close(null)
      }
    }
  }

  /// Writes `message` to standard error, neutralised: it may quote an argument, and arguments
  /// can hold escape sequences.
  private static func writeError(_ message: String) {
    TerminalConsole(output: 2).writeLine(message)
  }
}
