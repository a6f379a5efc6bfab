import ServiceLifecycle
import Synchronization

/// Milieu's services as one service of a swift-service-lifecycle `ServiceGroup`.
///
/// When the group runs it, it starts the services in the graph's order; it then runs until the
/// group shuts down gracefully, and stops them in reverse. Put it first in the group's list and
/// the HTTP server after it: the group shuts services down from the last to the first, so the
/// server stops accepting and finishes its requests before the services stop, and the server
/// waits for ``waitUntilRunning()`` before it accepts anything.
///
/// ```swift
/// let services = MilieuServiceGroupAdapter(start: { … }, stop: { … })
/// let group = ServiceGroup(
///   services: [services, ServerAfterServices(services: services, server: application)],
///   gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public final class MilieuServiceGroupAdapter: Service, CustomStringConvertible {
  private enum State {
    case starting([Int: CheckedContinuation<Void, any Error>], nextWaiter: Int)
    case running
    case ended(any Error)
  }

  private let start: @Sendable () async throws -> Void
  private let stop: @Sendable () async throws -> Void
  private let state = Mutex(State.starting([:], nextWaiter: 0))

  /// Creates the adapter.
  ///
  /// - Parameters:
  ///   - start: Starts the services in the graph's order; on failure, stops those already
  ///     started and throws.
  ///   - stop: Stops them in reverse.
  public init(
    start: @escaping @Sendable () async throws -> Void,
    stop: @escaping @Sendable () async throws -> Void
  ) {
    self.start = start
    self.stop = stop
  }

  /// Names the adapter in the group's log.
  public var description: String { "Milieu services" }

  /// Starts the services, runs until the group shuts down gracefully, and stops them.
  ///
  /// - Throws: ``ServicesDidNotStart`` when a start fails or a graceful shutdown interrupts
  ///   it; what stopping throws.
  public func run() async throws {
    do {
      try await cancelWhenGracefulShutdown(start)
    } catch {
      let failure = ServicesDidNotStart(
        underlying: error, byShutdown: Task.isShuttingDownGracefully)
      end(.ended(failure))
      throw failure
    }
    end(.running)
    try? await gracefulShutdown()
    try await stop()
  }

  /// Waits until every service has started, or the waiting task is cancelled.
  ///
  /// - Throws: ``ServicesDidNotStart`` when they did not; `CancellationError` when cancelled.
  public func waitUntilRunning() async throws {
    let waiter = state.withLock { state -> Int? in
      guard case .starting(let waiting, let next) = state else { return nil }
      state = .starting(waiting, nextWaiter: next + 1)
      return next
    }
    guard let waiter else { return try outcome() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let added = state.withLock { state -> Bool in
          guard case .starting(var waiting, let next) = state, !Task.isCancelled else {
            return false
          }
          waiting[waiter] = continuation
          state = .starting(waiting, nextWaiter: next)
          return true
        }
        if !added { continuation.resume(with: Result { try outcome() }) }
      }
    } onCancel: {
      let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
        guard case .starting(var waiting, let next) = state else { return nil }
        defer { state = .starting(waiting, nextWaiter: next) }
        return waiting.removeValue(forKey: waiter)
      }
      cancelled?.resume(throwing: CancellationError())
    }
  }

  /// How the start ended, once it has: nothing when the services run.
  private func outcome() throws {
    let current = state.withLock { state -> State in state }
    switch current {
    case .starting: throw CancellationError()
    case .running: return
    case .ended(let error): throw error
    }
  }

  private func end(_ outcome: State) {
    let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
      defer { state = outcome }
      guard case .starting(let waiting, _) = state else { return [] }
      return Array(waiting.values)
    }
    for continuation in waiting {
      if case .ended(let error) = outcome {
        continuation.resume(throwing: error)
      } else {
        continuation.resume()
      }
    }
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

/// The HTTP server as a service that accepts nothing until Milieu's services are running.
public struct ServerAfterServices<Server: Service>: Service, CustomStringConvertible {
  /// The services to wait for.
  public let services: MilieuServiceGroupAdapter
  /// The server.
  public let server: Server

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - services: The services to wait for.
  ///   - server: The server.
  public init(services: MilieuServiceGroupAdapter, server: Server) {
    self.services = services
    self.server = server
  }

  /// Names the server in the group's log.
  public var description: String { "HTTP server" }

  /// Waits for the services, then runs the server; returns at once if they did not start.
  ///
  /// - Throws: What the server throws.
  public func run() async throws {
    let services = services
    do {
      try await cancelWhenGracefulShutdown { try await services.waitUntilRunning() }
    } catch {
      return
    }
    try await server.run()
  }
}
