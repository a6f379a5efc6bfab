import ServiceLifecycle

/// The by-hand servers' store as a service of their `ServiceGroup`, started and stopped by
/// hand, where Milieu's server has ``MilieuServiceGroupAdapter`` start it through its node.
///
/// ```swift
/// let services = HandStartedStore(store, logger: logger)
/// ```
public struct HandStartedStore: Service {
  /// The store.
  public let store: any NotesStore
  /// Says when the store runs, or why it never will.
  public let readiness = ServicesReadiness()

  /// Creates the service.
  ///
  /// - Parameter store: The store.
  public init(_ store: any NotesStore) {
    self.store = store
  }

  /// Starts the store, runs until the group shuts down gracefully, then stops it.
  ///
  /// - Throws: ``ServicesDidNotStart`` when the start fails or a signal interrupts it; what
  ///   the stop throws.
  public func run() async throws {
    let store = store
    do {
      try await cancelWhenGracefulShutdown { try await store.start() }
    } catch {
      throw readiness.fail(error, byShutdown: Task.isShuttingDownGracefully)
    }
    readiness.markRunning()
    try? await gracefulShutdown()
    try await store.stop()
  }
}
