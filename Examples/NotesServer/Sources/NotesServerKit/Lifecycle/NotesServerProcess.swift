import Logging
import ServiceLifecycle

/// Runs a notes server process to its end: its services and its HTTP server in a
/// `ServiceGroup` that shuts down gracefully on SIGTERM and SIGINT, and the exit status that
/// says how it ended.
///
/// | status | what happened |
/// |---|---|
/// | 0 | stopped by SIGTERM or SIGINT after serving; requests in flight finished, then the services stopped in reverse order |
/// | 69 | a service (the store) could not start; what had started was stopped |
/// | 70 | a service failed while running, or stopping took longer than the shutdown timeout |
/// | 143 | stopped by SIGTERM or SIGINT while starting; what had started was stopped |
///
/// ```swift
/// let service = MilieuServiceGroupAdapter(
///   node: app, services: [\.notesService], server: application)
/// exit(await NotesServerProcess.run(service, shutdownTimeout: .seconds(10), logger: logger))
/// ```
public enum NotesServerProcess {
  /// The exit status of a process that stopped as asked after serving.
  public static let stopped: Int32 = 0
  /// The exit status of a process whose services could not start.
  public static let serviceUnavailable: Int32 = 69
  /// The exit status of a process whose services failed while running, or did not stop in
  /// time.
  public static let serviceFailed: Int32 = 70
  /// The exit status of a process stopped by a signal while starting.
  public static let stoppedWhileStarting: Int32 = 143

  /// Runs the server and its services until a signal stops them, or a service fails.
  ///
  /// - Parameters:
  ///   - service: The services and the server that uses them, as one service: a
  ///     ``MilieuServiceGroupAdapter``, as Milieu's server makes it or as
  ///     ``HandStartedStore/around(_:store:)`` makes the by-hand servers'.
  ///   - shutdownTimeout: How long the graceful shutdown may take before the group cancels
  ///     what is left.
  ///   - logger: Where the group logs, and where the end is logged.
  /// - Returns: The exit status.
  public static func run(
    _ service: some Service, shutdownTimeout: Duration, logger: Logger
  ) async -> Int32 {
    // README: begin
    var configuration = ServiceGroupConfiguration(
      services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = shutdownTimeout
    // README: end
    configuration.maximumCancellationDuration = .seconds(1)
    do {
      // README: begin
      try await ServiceGroup(configuration: configuration).run()
      // README: end
      logger.notice("stopped: the server and every service stopped in order")
      return stopped
    } catch let error as ServicesDidNotStart {
      logger.error("\(error)")
      return error.byShutdown ? stoppedWhileStarting : serviceUnavailable
    } catch {
      logger.error("a service failed, or stopping took too long: \(error)")
      return serviceFailed
    }
  }
}
