import Milieu
import MilieuTerminal
import Synchronization

/// Counts the issues Milieu reports while the demo runs — a terminal that could not be used,
/// say — and writes each to standard error, so that the demo can exit with status 1.
final class IssueCounter: Sendable {
  private let count = Atomic(0)

  /// How many issues were reported.
  var issues: Int { count.load(ordering: .acquiring) }

  /// The reporter to install: one line on standard error per issue, and a count.
  ///
  /// Each line goes through a console: neutralised, since issues quote titles that may hold
  /// escape sequences, and written above an alert's box when standard error shares its terminal.
  var reporter: IssueReporter {
    let console = TerminalConsole(output: 2)
    return IssueReporter { [self] issue in
      count.add(1, ordering: .releasing)
      console.writeLine("milieu-demo: \(issue)")
    }
  }
}
