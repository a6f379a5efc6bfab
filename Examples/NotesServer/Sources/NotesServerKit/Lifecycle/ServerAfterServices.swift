import ServiceLifecycle

/// The HTTP server as a service that accepts nothing until the process's services run.
///
/// ```swift
/// ServerAfterServices(services.readiness, server: application)
/// ```
public struct ServerAfterServices<Server: Service>: Service, CustomStringConvertible {
  /// Says when the services run.
  public let readiness: ServicesReadiness
  /// The server.
  public let server: Server

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - readiness: Says when the services run.
  ///   - server: The server.
  public init(_ readiness: ServicesReadiness, server: Server) {
    self.readiness = readiness
    self.server = server
  }

  /// Names the server in the group's log.
  public var description: String { "HTTP server" }

  /// Waits for the services, then runs the server; returns at once if they did not start, or
  /// the group shuts down first.
  ///
  /// - Throws: What the server throws.
  public func run() async throws {
    let readiness = readiness
    do {
      try await cancelWhenGracefulShutdown { try await readiness.waitUntilRunning() }
    } catch {
      return
    }
    try await server.run()
  }
}
