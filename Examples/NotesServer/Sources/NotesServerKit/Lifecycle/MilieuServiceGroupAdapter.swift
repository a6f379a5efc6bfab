// README: begin
import Milieu
import ServiceLifecycle

/// A node's services and the server that uses them, as one service of a `ServiceGroup`:
/// Milieu starts the services in their graph's order, the server runs once they all run, and
/// after its graceful shutdown (SIGTERM or SIGINT: it stops accepting and finishes its
/// requests) the services stop in reverse.
///
/// ```swift
/// MilieuServiceGroupAdapter(node: app, services: [\.notesService], server: application)
/// ```
public struct MilieuServiceGroupAdapter<Server: Service>: Service {
  /// The node whose services run.
  public let node: EnvironmentNode
  /// The services the program runs; Milieu starts what they read first.
  public let services: [PartialKeyPath<EnvironmentValues> & Sendable]
  /// What runs while they run: the HTTP server, or a `ServiceGroup` of several.
  public let server: Server

  /// Creates the adapter.
  ///
  /// - Parameters:
  ///   - node: The node whose services run.
  ///   - services: The services the program runs.
  ///   - server: What runs while they run.
  public init(
    node: EnvironmentNode, services: [PartialKeyPath<EnvironmentValues> & Sendable],
    server: Server
  ) {
    self.node = node
    self.services = services
    self.server = server
  }

  /// Starts the services, runs the server until it returns, then stops the services.
  ///
  /// - Throws: ``ServicesDidNotStart`` when a start fails, or a signal interrupts it; what the
  ///   server throws; Milieu's `ServiceError` when a stop fails or outlives its timeout.
  public func run() async throws {
    let (node, services) = (node, services)
    let running: RunningServices
    do {
      // A SIGTERM while they start cancels the start, which stops what had started.
      running = try await cancelWhenGracefulShutdown { try await node.startServices(services) }
    } catch {
      throw ServicesDidNotStart(underlying: error, byShutdown: Task.isShuttingDownGracefully)
    }
    do {
      // The server returns once a graceful shutdown has let its requests finish.
      if !Task.isShuttingDownGracefully { try await server.run() }
    } catch {
      try? await running.stop()  // the server's failure is the one to report
      throw error
    }
    try await running.stop()
  }
}

/// The services did not start: one failed, or a signal stopped the process first.
public struct ServicesDidNotStart: Error, CustomStringConvertible {
  /// What the start threw.
  public let underlying: any Error
  /// Whether a graceful shutdown (SIGTERM or SIGINT) interrupted the start.
  public let byShutdown: Bool

  /// One line that says what happened.
  public var description: String {
    byShutdown
      ? "stopped while starting, by a signal; what had started was stopped: \(underlying)"
      : "a service could not start: \(underlying)"
  }
}
// README: end

// *Services with lifecycles*, the Milieu article, shows this file whole, as a program copies
// it; the Milieu package's ReadmeExampleTests keeps the two the same.
