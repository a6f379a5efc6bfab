import Milieu
import Testing

/// One value a test environment overrides.
///
/// ```swift
/// withTestEnvironment(.set(\.retries, 1), .set(\.showAlert, .unimplemented)) { … }
/// ```
public struct EnvironmentOverride: Sendable {
  let apply: @Sendable (inout EnvironmentValues) -> Void

  /// Overrides one value.
  ///
  /// - Parameters:
  ///   - keyPath: The value to override.
  ///   - value: Its value in the test.
  /// - Returns: The override.
  public static func set<Value: Sendable>(
    _ keyPath: WritableKeyPath<EnvironmentValues, Value> & Sendable, _ value: Value
  ) -> Self {
    Self { $0[keyPath: keyPath] = value }
  }

  /// Overrides whatever a closure writes.
  ///
  /// - Parameter body: Writes the overrides.
  /// - Returns: The override.
  public static func configure(
    _ body: @escaping @Sendable (inout EnvironmentValues) -> Void
  ) -> Self {
    Self(apply: body)
  }
}

/// Runs a test body in a fresh child of the current node, with values overridden for that body
/// alone.
///
/// Tests that run in parallel each get their own node, so they never see each other's
/// overrides. Milieu's issues inside the body fail the test.
///
/// ```swift
/// @Test func retriesAreCapped() {
///   withTestEnvironment(.set(\.retries, 1)) {
///     #expect(Importer().run() == .gaveUp(afterAttempts: 1))
///   }
/// }
/// ```
///
/// - Parameters:
///   - overrides: The values to override.
///   - fileID: The call site; leave the default.
///   - line: The call site; leave the default.
///   - body: The test code.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withTestEnvironment<Result, Failure: Error>(
  _ overrides: EnvironmentOverride...,
  fileID: String = #fileID, line: UInt = #line,
  operation body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  try testNode(overrides, fileID: fileID, line: line).withCurrent(body)
}

/// Runs an asynchronous test body in a fresh child of the current node, with values overridden
/// for that body alone.
///
/// ```swift
/// @Test func uploadsUseTheTestServer() async throws {
///   try await withTestEnvironment(.set(\.server, .local(port: 8080))) {
///     try await Uploader().upload(file)
///   }
/// }
/// ```
///
/// - Parameters:
///   - overrides: The values to override.
///   - fileID: The call site; leave the default.
///   - line: The call site; leave the default.
///   - isolation: The actor the body runs on; leave the default.
///   - body: The test code.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withTestEnvironment<Result, Failure: Error>(
  _ overrides: EnvironmentOverride...,
  fileID: String = #fileID, line: UInt = #line,
  isolation: isolated (any Actor)? = #isolation,
  operation body: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
  try await testNode(overrides, fileID: fileID, line: line).withCurrent(body)
}

func testNode(
  _ overrides: [EnvironmentOverride], fileID: String, line: UInt
) -> EnvironmentNode {
  TestRunnerReporter.connect()
  return EnvironmentNode.current.child(
    "test environment (\(fileID):\(line))", fileID: fileID, line: line
  ) { values in
    values.issueReporter = TestRunnerReporter.reporter
    for override in overrides { override.apply(&values) }
  }
}

/// A Swift Testing trait that runs each test in a fresh child node with overridden values.
///
/// ```swift
/// @Suite(.environment(.set(\.retries, 0)))
/// struct OfflineTests {
///   @Test func showsTheOfflineAlert() { … }
/// }
/// ```
public struct EnvironmentTrait: TestTrait, SuiteTrait, TestScoping {
  let overrides: [EnvironmentOverride]
  let callSite: CallSite

  /// Applies to every test in a suite, each in its own node.
  public var isRecursive: Bool { true }

  /// Runs the test inside its own node.
  ///
  /// - Parameters:
  ///   - test: The test.
  ///   - testCase: The test case, for parameterised tests.
  ///   - function: Runs the test.
  /// - Throws: What the test throws.
  public func provideScope(
    for test: Test, testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    try await testNode(overrides, fileID: callSite.fileID, line: callSite.line).withCurrent {
      try await function()
    }
  }
}

extension Trait where Self == EnvironmentTrait {
  /// Runs each test in a fresh child node with overridden values.
  ///
  /// ```swift
  /// @Test(.environment(.set(\.showAlert, .unimplemented)))
  /// func quietImport() { … }
  /// ```
  ///
  /// - Parameters:
  ///   - overrides: The values to override.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  /// - Returns: The trait.
  public static func environment(
    _ overrides: EnvironmentOverride...,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    EnvironmentTrait(
      overrides: overrides,
      callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}
