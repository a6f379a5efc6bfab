/// A value in the environment that starts and stops: a database pool, a cache warmed at launch,
/// a metrics exporter.
///
/// Conform the type of an entry or of a ``EnvironmentValues/Derived`` value, and
/// ``EnvironmentNode/startServices(_:stopTimeout:clock:fileID:filePath:line:column:)`` starts
/// it with everything it was built from that has a lifecycle, in the graph's order:
///
/// ```swift
/// final class Database: LifecycleService {
///   let url: String
///   init(url: String) { self.url = url }
///
///   func start() async throws { /* connect */ }
///   func stop() async throws { /* close */ }
/// }
///
/// extension EnvironmentValues {
///   static let database = Derived { values in Database(url: values.databaseURL) }
///   var database: Database { self[Self.database] }
/// }
///
/// let running = try await app.startServices([\.database])
/// // … serve …
/// try await running.stop()
/// ```
///
/// Milieu calls ``start()`` once and, once it returned, ``stop()`` once, each with the node
/// whose services are started made current. A start should return when the service can be
/// used, and throw when it cannot be; a stop should return when the service has let go of what
/// it holds. Both should end early when their task is cancelled: a start is cancelled when the
/// program is told to stop while it starts, a stop when it outlives its timeout.
public protocol LifecycleService: Sendable {
  /// Starts the service; returns once it can be used.
  ///
  /// ```swift
  /// func start() async throws {
  ///   try await pool.connect()
  /// }
  /// ```
  ///
  /// - Throws: Why the service cannot run. Milieu then stops what had started, in reverse.
  func start() async throws

  /// Stops the service; returns once it has let go of what it holds.
  ///
  /// ```swift
  /// func stop() async throws {
  ///   await pool.close()
  /// }
  /// ```
  ///
  /// - Throws: Why the service did not stop cleanly; Milieu reports it and stops the rest.
  func stop() async throws
}
