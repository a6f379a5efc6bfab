import Milieu
import MilieuAlerts
@preconcurrency import XCTest

/// Runs a test body with an ``AlertRecorder`` installed on a fresh child of the current node.
///
/// Everything the body creates binds to that node, so its `showAlert` reaches the recorder.
/// When the body returns or throws, the recorder finishes: if it is exhaustive, alerts nobody
/// checked fail the test.
///
/// ```swift
/// withAlertRecorder { alerts in
///   Cart().checkOutWithEmptyCart()
///   #expect(alerts.title == "Your cart is empty")
/// }
/// ```
///
/// - Parameters:
///   - exhaustive: Whether unchecked alerts fail the test at the end.
///   - fileID: The call site; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site; leave the default.
///   - column: The call site; leave the default.
///   - body: The test code; receives the recorder.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withAlertRecorder<Result, Failure: Error>(
  exhaustive: Bool = true,
  fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
  column: UInt = #column,
  _ body: (AlertRecorder) throws(Failure) -> Result
) throws(Failure) -> Result {
  let recorder = AlertRecorder(
    exhaustive: exhaustive, fileID: fileID, filePath: filePath, line: line, column: column)
  defer { recorder.finish() }
  return try scopeNode(for: recorder).withCurrent { () throws(Failure) -> Result in
    try body(recorder)
  }
}

/// Runs an asynchronous test body with an ``AlertRecorder`` installed on a fresh child of the
/// current node.
///
/// ```swift
/// try await withAlertRecorder { alerts in
///   Task { await sync.run() }
///   let alert = try await alerts.next()
///   #expect(alert.title == "Sync failed")
///   try await alerts.tap("Retry")
/// }
/// ```
///
/// - Parameters:
///   - exhaustive: Whether unchecked alerts fail the test at the end.
///   - fileID: The call site; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site; leave the default.
///   - column: The call site; leave the default.
///   - isolation: The actor the body runs on; leave the default.
///   - body: The test code; receives the recorder.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withAlertRecorder<Result, Failure: Error>(
  exhaustive: Bool = true,
  fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
  column: UInt = #column,
  isolation: isolated (any Actor)? = #isolation,
  _ body: (AlertRecorder) async throws(Failure) -> Result
) async throws(Failure) -> Result {
  let recorder = AlertRecorder(
    exhaustive: exhaustive, fileID: fileID, filePath: filePath, line: line, column: column)
  defer { recorder.finish() }
  return try await scopeNode(for: recorder).withCurrent { () async throws(Failure) -> Result in
    // Naming `isolation` keeps the closure on the caller's actor; see `withCurrent`.
    _ = isolation
    return try await body(recorder)
  }
}

private func scopeNode(for recorder: AlertRecorder) -> EnvironmentNode {
  let node = EnvironmentNode.current.child("alert recorder (\(recorder.callSite))") { values in
    values.showAlert = recorder.action
    values.alertHost = recorder.host
    values.issueReporter = TestRunnerReporter.reporter
  }
  recorder.install(on: node)
  return node
}

extension EnvironmentNode {
  /// Installs a new ``AlertRecorder`` on this node: every `showAlert` in the subtree reaches it.
  ///
  /// The node keeps the recorder alive. An exhaustive recorder installed this way reports
  /// unchecked alerts when ``AlertRecorder/finish()`` is called, or when it is deinitialized;
  /// prefer ``withAlertRecorder(exhaustive:fileID:filePath:line:column:isolation:_:)``, which finishes
  /// it inside the test.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app under test")
  /// let alerts = app.installAlertRecorder()
  /// ```
  ///
  /// - Parameters:
  ///   - exhaustive: Whether unchecked alerts fail the test when the recorder finishes.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  /// - Returns: The recorder.
  @discardableResult
  public func installAlertRecorder(
    exhaustive: Bool = true,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) -> AlertRecorder {
    let recorder = AlertRecorder(
      exhaustive: exhaustive, fileID: fileID, filePath: filePath, line: line, column: column)
    update(fileID: fileID, line: line) { values in
      values.showAlert = recorder.action
      values.alertHost = recorder.host
    }
    recorder.install(on: self)
    return recorder
  }
}

extension XCTestCase {
  /// Runs an XCTest body with an ``AlertRecorder``; failures, the exhaustivity check included,
  /// are recorded on this test case.
  ///
  /// ```swift
  /// final class LoginTests: XCTestCase {
  ///   func testExpiredSessionAsksToSignIn() async throws {
  ///     try await withAlertRecorder { alerts in
  ///       Session().expire()
  ///       XCTAssertEqual(alerts.title, "Session expired")
  ///       try await alerts.tap("Sign In")
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - exhaustive: Whether unchecked alerts fail the test at the end.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - body: The test code; receives the recorder.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withAlertRecorder<Result>(
    exhaustive: Bool = true, fileID: String = #fileID, filePath: String = #filePath,
    line: UInt = #line,
    _ body: (AlertRecorder) async throws -> Result
  ) async rethrows -> Result {
    try await XCTestCaseScope.$current.withValue(XCTestCaseScope.Box(self)) {
      try await MilieuTesting.withAlertRecorder(
        exhaustive: exhaustive, fileID: fileID, filePath: filePath, line: line, column: 1
      ) { recorder in
        try await body(recorder)
      }
    }
  }
}
