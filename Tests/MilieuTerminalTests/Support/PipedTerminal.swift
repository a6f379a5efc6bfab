@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Testing

@testable import MilieuTerminal

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard input and output replaced by pipes, for presenting alerts in plain mode: the test
/// types lines into ``type(_:)`` and reads what was written with ``waitFor(_:)``.
final class PipedTerminal: Sendable {
  let inputRead: Int32
  let inputWrite: Int32
  let outputRead: Int32
  let outputWrite: Int32
  private let watcher: OutputWatcher
  private let isInputOpen = Lock(true)

  init() throws {
    (inputRead, inputWrite) = try makePipe()
    (outputRead, outputWrite) = try makePipe()
    watcher = OutputWatcher(outputRead)
  }

  /// A presenter that reads from and writes to the pipes, never in colour.
  var presenter: Terminal {
    Terminal(input: inputRead, output: outputWrite, colorPolicy: .never)
  }

  /// Types text, as if the user typed it and pressed nothing else.
  func type(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { write(inputWrite, $0.baseAddress, $0.count) }
  }

  /// Ends the input.
  func endInput() {
    let wasOpen = isInputOpen.withLock { isOpen in
      defer { isOpen = false }
      return isOpen
    }
    if wasOpen { close(inputWrite) }
  }

  /// Waits until `text` is written after the previous match; see ``OutputWatcher``.
  func waitFor(_ text: String) -> Bool {
    watcher.waitFor(text)
  }

  /// Closes everything and returns all that was written.
  func finish() -> String {
    close(outputWrite)
    let rest = readAll(outputRead)
    close(outputRead)
    endInput()
    close(inputRead)
    return watcher.text + rest
  }
}

/// Collects issues reported in a scope instead of failing the test.
final class IssueCollector: Sendable {
  private let issues = Lock<[EnvironmentIssue]>([])

  /// A node below the current one whose issues go to this collector.
  func node() -> EnvironmentNode {
    EnvironmentNode.current.child("collecting issues") { values in
      values.issueReporter = IssueReporter { issue in self.issues.withLock { $0.append(issue) } }
    }
  }

  var all: [EnvironmentIssue] { issues.withLock { $0 } }
}
