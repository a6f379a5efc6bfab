/// The services a node started: keep it while they run, and stop them with it.
///
/// ```swift
/// let running = try await app.startServices([\.notesService])
/// print(running.services)  // ["database", "searchIndex"]: what this call started
/// // … serve until told to stop …
/// try await running.stop()  // searchIndex, then database
/// ```
///
/// Freed while its services run, it reports that through the node's
/// ``EnvironmentValues/issueReporter`` and stops them, in reverse, in a task of its own: a
/// subtree dropped with its services running leaves nothing running.
public final class RunningServices: Sendable {
  private let run: ServiceRun

  init(_ run: ServiceRun) {
    self.run = run
  }

  deinit {
    run.abandon()
  }

  /// The node whose services these are.
  ///
  /// ```swift
  /// print(running.node)  // node "app"
  /// ```
  public var node: EnvironmentNode { run.node }

  /// The services this call started, by name, in the order their starts returned.
  ///
  /// Services that another node's running services had started already are read, not started
  /// again, and not listed.
  ///
  /// ```swift
  /// print(running.services)  // ["database", "searchIndex"]
  /// ```
  public var services: [String] { run.startedNames }

  /// Stops the services that no other running node uses, in the reverse of the order they
  /// started, each awaited and bounded by the stop timeout given at their start.
  ///
  /// A service is stopped once nothing uses it: a service another node's running services use
  /// too keeps running, and stops with the last of them, after every service that reads it.
  /// Every service is stopped, whatever the others do: one whose stop throws, or outlives its
  /// timeout (its stop is then cancelled), is a failure of the error thrown at the end. Only
  /// the first call stops anything; later ones return at once.
  ///
  /// ```swift
  /// do {
  ///   try await running.stop()
  /// } catch {
  ///   print(error)  // database did not stop within 30.0 seconds: …
  /// }
  /// ```
  ///
  /// - Throws: ``ServiceError``, naming each service that failed to stop in time or cleanly.
  public func stop() async throws(ServiceError) {
    let failures = await run.stop()
    guard failures.isEmpty else { throw ServiceError(failures: failures) }
  }
}
