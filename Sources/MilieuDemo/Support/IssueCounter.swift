import Milieu
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Counts the issues Milieu reports while the demo runs — a terminal that could not be used,
/// say — and writes each to standard error, so that the demo can exit with status 1.
final class IssueCounter: Sendable {
  private let count = Atomic(0)

  /// How many issues were reported.
  var issues: Int { count.load(ordering: .acquiring) }

  /// The reporter to install: one line on standard error per issue, and a count.
  var reporter: IssueReporter {
    IssueReporter { [self] issue in
      count.add(1, ordering: .releasing)
      let line = "milieu-demo: \(issue)\n"
      _ = line.utf8CString.withUnsafeBufferPointer { buffer in
        write(2, buffer.baseAddress, buffer.count - 1)
      }
    }
  }
}
