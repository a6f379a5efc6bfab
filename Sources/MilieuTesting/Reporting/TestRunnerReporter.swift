import Milieu
import Testing
@preconcurrency import XCTest

/// Sends Milieu's issues to the test runner that is running: Swift Testing, XCTest, or neither.
///
/// Connected process-wide the first time any `MilieuTesting` API is used, so that even code that
/// reads ``Milieu/IssueReporter/automatic`` reports into the test that is running.
enum TestRunnerReporter {
  /// Connects the reporter once.
  static func connect() {
    _ = connection
  }

  private static let connection: Void = {
    IssueReporter.connectTestRunner(reporter)
  }()

  /// The reporter that test scopes install.
  static let reporter = IssueReporter { issue in report(issue) }

  /// Records a test failure at the issue's call site.
  static func report(_ issue: EnvironmentIssue) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: issue.message),
        sourceLocation: SourceLocation(
          fileID: issue.location.fileID, filePath: issue.location.filePath,
          line: Int(issue.location.line), column: Int(issue.location.column)))
    } else if let testCase = XCTestCaseScope.current?.testCase {
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
