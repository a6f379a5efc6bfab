import Milieu
import ServiceLifecycle

/// A node's services, started and stopped by Milieu in the graph's order, as one service of a
/// swift-service-lifecycle `ServiceGroup`.
///
/// Put it before the HTTP server in the group's list: the group shuts services down from the
/// last to the first, so the server stops accepting and finishes its requests before the
/// node's services stop, and ``ServerAfterServices`` makes the server wait for ``readiness``.
///
/// ```swift
/// let services = MilieuServiceGroupAdapter(node: app, services: [\.notesService])
/// let group = ServiceGroup(
///   services: [services, ServerAfterServices(services.readiness, server: application)],
///   gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// ```
public struct MilieuServiceGroupAdapter: Service {
  /// The node whose services run.
  public let node: EnvironmentNode
  /// The services the program runs; Milieu starts what they read first.
  public let services: [PartialKeyPath<EnvironmentValues> & Sendable]
  /// Says when the services run, or why they never will.
  public let readiness = ServicesReadiness()

  /// Creates the adapter.
  ///
  /// - Parameters:
  ///   - node: The node whose services run.
  ///   - services: The services the program runs.
  public init(node: EnvironmentNode, services: [PartialKeyPath<EnvironmentValues> & Sendable]) {
    self.node = node
    self.services = services
  }

  /// Starts the services, runs until the group shuts down gracefully, then stops them.
  ///
  /// - Throws: ``ServicesDidNotStart`` when a start fails, or a signal interrupts it;
  ///   Milieu's `ServiceError` when a stop fails or outlives its timeout.
  public func run() async throws {
    let (node, services) = (node, services)
    let running: RunningServices
    do {
      running = try await cancelWhenGracefulShutdown { try await node.startServices(services) }
    } catch {
      throw readiness.fail(error, byShutdown: Task.isShuttingDownGracefully)
    }
    readiness.markRunning()
    try? await gracefulShutdown()
    try await running.stop()
  }
}
