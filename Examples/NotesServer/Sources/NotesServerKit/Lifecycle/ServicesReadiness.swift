import Synchronization

/// Whether a process's services have started: what its HTTP server waits for before it
/// accepts anything.
///
/// ```swift
/// readiness.markRunning()                   // by whoever starts the services
/// try await readiness.waitUntilRunning()   // by the server
/// ```
public final class ServicesReadiness: Sendable {
  private enum State {
    case starting([Int: CheckedContinuation<Void, any Error>], nextWaiter: Int)
    case running
    case failed(ServicesDidNotStart)
  }

  private let state = Mutex(State.starting([:], nextWaiter: 0))

  /// Creates a readiness whose services are starting.
  public init() {}

  /// Says that the services run, and wakes whoever waits.
  public func markRunning() {
    end(.running)
  }

  /// Says that the services did not start, and wakes whoever waits with the reason.
  ///
  /// - Parameters:
  ///   - error: What the start threw.
  ///   - byShutdown: Whether a graceful shutdown (a signal) interrupted the start.
  /// - Returns: The error to throw.
  public func fail(_ error: any Error, byShutdown: Bool) -> ServicesDidNotStart {
    let failure = ServicesDidNotStart(underlying: error, byShutdown: byShutdown)
    end(.failed(failure))
    return failure
  }

  /// Waits until the services run, or the waiting task is cancelled.
  ///
  /// - Throws: ``ServicesDidNotStart`` when they did not start; `CancellationError` when
  ///   cancelled first.
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

  /// How the start ended, once it has; `CancellationError` while it goes on.
  private func outcome() throws {
    let current = state.withLock { state -> State in state }
    switch current {
    case .starting: throw CancellationError()
    case .running: return
    case .failed(let failure): throw failure
    }
  }

  private func end(_ outcome: State) {
    let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
      defer { state = outcome }
      guard case .starting(let waiting, _) = state else { return [] }
      return Array(waiting.values)
    }
    for continuation in waiting {
      if case .failed(let failure) = outcome {
        continuation.resume(throwing: failure)
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
