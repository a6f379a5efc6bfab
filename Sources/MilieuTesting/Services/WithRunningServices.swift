import Milieu
import Testing

/// Runs a test with its services running: starts them in a fresh test node, runs the body
/// once they all run, and stops them in reverse when it ends, whether it passes, fails or
/// throws.
///
/// The node is a child of the current node with `overrides`, as
/// ``withTestEnvironment(_:fileID:line:isolation:operation:)`` makes it, current while the body
/// runs. Its services start as `EnvironmentNode.startServices(_:)` starts them: in the graph's
/// order, each once.
///
/// ```swift
/// @Test func notesAreSavedWhileTheDatabaseRuns() async throws {
///   try await withRunningServices([\.notesService], .set(\.databaseURL, "sqlite::memory:")) {
///     try await EnvironmentNode.current[\.notesService].save(Note("Groceries"))
///   }
/// }
/// ```
///
/// A start that fails is thrown, as `ServiceError`, before the body runs: it fails the
/// test with a message that names the service and its path, or a test that expects it catches
/// it (`#expect(throws: ServiceError.self)`). So is a fake in `overrides` for a service that
/// none of `services` leads to, which would apply to nothing. A stop that fails or outlives `stopTimeout` is
/// recorded as an issue of the test, naming the service, after the body's own outcome.
///
/// - Parameters:
///   - services: The services to start, as key paths into the environment.
///   - overrides: The values the test overrides, fakes of services among them
///     (``EnvironmentOverride/startFails(_:throwing:)``, ``EnvironmentOverride/stopHangs(_:)``).
///   - stopTimeout: How long each stop may take before it is cancelled and reported: a
///     positive duration.
///   - clock: The clock the stop timeout runs on: a ``TestClock`` to move it by hand.
///   - fileID: The call site; leave the default.
///   - filePath: The call site's path; leave the default.
///   - line: The call site's line; leave the default.
///   - column: The call site's column; leave the default.
///   - isolation: The actor the body runs on; leave the default.
///   - body: The test code, run once every service runs.
/// - Returns: What `body` returns.
/// - Throws: `ServiceError` if a start fails; else what `body` throws.
public func withRunningServices<Result>(
  _ services: [PartialKeyPath<EnvironmentValues> & Sendable],
  _ overrides: EnvironmentOverride...,
  stopTimeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock(),
  fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
  column: UInt = #column,
  isolation: isolated (any Actor)? = #isolation,
  operation body: () async throws -> Result
) async throws -> Result {
  let inherited = Set(EnvironmentNode.current[\.serviceLifecycleReplacements].map(\.id))
  let node = testNode(overrides, fileID: fileID, line: line)
  let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  // The fakes given here must apply to these services; those of an enclosing scope need not.
  let fakes = node[\.serviceLifecycleReplacements].map(\.id).filter { !inherited.contains($0) }
  let running = try await node.startServices(
    services, stopTimeout: stopTimeout, clock: clock, at: callSite,
    requiringFakes: Set(fakes))
  let outcome: Swift.Result<Result, any Error>
  do {
    outcome = .success(try await node.withCurrent { try await body() })
  } catch {
    outcome = .failure(error)
  }
  do {
    try await running.stop()
  } catch {
    for failure in error.failures {
      TestRunnerReporter.fail(failure.description, at: callSite)
    }
  }
  return try outcome.get()
}
