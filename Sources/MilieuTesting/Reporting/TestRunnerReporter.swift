@_spi(MilieuInternal) import Milieu
import Testing
@preconcurrency import XCTest

/// Sends Milieu's issues to the test runner that is running: Swift Testing, XCTest, or neither.
///
/// Connected process-wide when a binary that links `MilieuTesting` is loaded (the
/// `MilieuTestingOnLoad` target calls ``connectOnLoad()``), so that every issue reported through
/// ``Milieu/IssueReporter/automatic`` inside a running test fails that test, whatever ran before.
enum TestRunnerReporter {
  /// Connects the reporter and starts following XCTest's test cases, once.
  static func connect() {
    _ = connection
  }

  private static let connection: Void = {
    XCTestCaseTracker.start()
    IssueReporter.connectTestRunner(reporter)
  }()

  /// The reporter that test scopes install.
  static let reporter = IssueReporter { issue in report(issue) }

  /// Records a test failure at the issue's call site: in the Swift Testing test that is running,
  /// else in the XCTest case that is running, else as one line on standard error.
  static func report(_ issue: EnvironmentIssue) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: issue.message),
        sourceLocation: SourceLocation(
          fileID: issue.location.fileID, filePath: issue.location.filePath,
          line: Int(issue.location.line), column: Int(issue.location.column)))
    } else if let testCase = XCTestCaseScope.current?.testCase ?? XCTestCaseTracker.current {
      testCase.recordFailure(
        withDescription: issue.message, inFile: issue.location.filePath,
        atLine: Int(issue.location.line), expected: true)
    } else {
      IssueReporter.standardError.report(issue)
    }
  }

  /// Records a failure at a call site.
  static func fail(_ message: String, at location: CallSite) {
    report(EnvironmentIssue(message, at: location))
  }
}

/// Called by the `MilieuTestingOnLoad` target when the binary is loaded, before any test runs.
@_cdecl("milieu_testing_connect")
package func connectOnLoad() {
  TestRunnerReporter.connect()
}

/// The XCTest case whose scope (``XCTest/XCTestCase/withAlertRecorder(exhaustive:file:line:_:)``)
/// is running, so failures go to it.
enum XCTestCaseScope {
  @TaskLocal static var current: Box?

  /// Carries the test case across tasks.
  ///
  /// `@unchecked Sendable`: XCTest test cases are not `Sendable`, but the box only hands the case
  /// back to record a failure while that test runs, which is how XCTest's own assertions use it
  /// from the test's tasks.
  final class Box: @unchecked Sendable {
    let testCase: XCTestCase
    init(_ testCase: XCTestCase) { self.testCase = testCase }
  }
}

#if canImport(ObjectiveC)
  typealias XCTestObserverBase = NSObject
#else
  class XCTestObserverBase {}
#endif

/// Follows XCTest's runs to know which test case is running, as XCTest's own assertions do.
///
/// `@unchecked Sendable`: its one stored property is a lock.
final class XCTestCaseTracker: XCTestObserverBase, XCTestObservation, @unchecked Sendable {
  private let running = Lock<XCTestCaseScope.Box?>(nil)

  private static let shared = XCTestCaseTracker()

  /// Starts following test cases; XCTest keeps the observer for the whole process.
  static func start() {
    XCTestObservationCenter.shared.addTestObserver(shared)
  }

  /// The test case running now, if any.
  static var current: XCTestCase? { shared.running.withLock { $0?.testCase } }

  func testCaseWillStart(_ testCase: XCTestCase) {
    running.withLock { $0 = XCTestCaseScope.Box(testCase) }
  }

  func testCaseDidFinish(_ testCase: XCTestCase) {
    running.withLock { $0 = nil }
  }
}
