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
/// let services = MilieuServiceGroupAdapter(node: app, services: [\.notesService])
/// exit(await NotesServerProcess.run(server: application, services: services, …))
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
  ///   - server: The HTTP server.
  ///   - services: What starts and stops the services, in the group before the server:
  ///     ``MilieuServiceGroupAdapter``, or ``HandStartedStore``.
  ///   - readiness: Says when they run; the server waits for it.
  ///   - shutdownTimeout: How long the graceful shutdown may take before the group cancels
  ///     what is left.
  ///   - logger: Where the group logs, and where the end is logged.
  /// - Returns: The exit status.
  public static func run(
    server: some Service, services: some Service, readiness: ServicesReadiness,
    shutdownTimeout: Duration, logger: Logger
  ) async -> Int32 {
    var configuration = ServiceGroupConfiguration(
      services: [
        .init(
          service: services, successTerminationBehavior: .gracefullyShutdownGroup,
          serviceName: "services"),
        .init(
          service: ServerAfterServices(readiness, server: server),
          successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "HTTP server"),
      ],
      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = shutdownTimeout
    configuration.maximumCancellationDuration = .seconds(1)
    do {
      try await ServiceGroup(configuration: configuration).run()
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
