/// One service that runs, or is starting, in the process: which run of services started it,
/// whether it runs yet, and which other runs read it.
///
/// A run that reads a service another run started does not start it again: it waits for it to
/// run (``waitUntilRunning()``) and borrows it until it stops.
final class ServiceRegistration: Sendable {
  /// The node whose run starts the service, as diagnostics name it.
  let owner: String

  private enum Phase {
    case starting(waiters: [Int: CheckedContinuation<Void, any Error>])
    case running
    case failed
  }

  private struct State {
    var phase = Phase.starting(waiters: [:])
    var nextWaiter = 0
    /// The runs that borrow the service, by their number, with their node's name.
    var borrowers: [UInt64: String] = [:]
  }

  /// Why a borrowed service will not run: its own run failed to start it.
  struct NotStarted: Error {}

  private let state = Lock(State())

  init(owner: String) {
    self.owner = owner
  }

  /// Returns once the service runs.
  ///
  /// - Throws: ``NotStarted`` if its start failed; `CancellationError` if the waiting task is
  ///   cancelled first.
  func waitUntilRunning() async throws {
    try Task.checkCancellation()
    let waiter = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let phase = state.withLock { state -> Phase? in
          guard case .starting(var waiters) = state.phase else { return state.phase }
          waiters[waiter] = continuation
          state.phase = .starting(waiters: waiters)
          return nil
        }
        switch phase {
        case .running: continuation.resume()
        case .failed: continuation.resume(throwing: NotStarted())
        case .starting, nil: if Task.isCancelled { cancelWaiter(waiter) }
        }
      }
    } onCancel: {
      cancelWaiter(waiter)
    }
  }

  private func cancelWaiter(_ waiter: Int) {
    let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard case .starting(var waiters) = state.phase else { return nil }
      defer { state.phase = .starting(waiters: waiters) }
      return waiters.removeValue(forKey: waiter)
    }
    continuation?.resume(throwing: CancellationError())
  }

  /// Records that the start ended, and wakes the runs waiting for it.
  func finishStarting(succeeded: Bool) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
      guard case .starting(let waiters) = state.phase else { return [] }
      state.phase = succeeded ? .running : .failed
      return Array(waiters.values)
    }
    for waiter in waiters {
      if succeeded { waiter.resume() } else { waiter.resume(throwing: NotStarted()) }
    }
  }

  /// Records that run `run`, of the node `node`, reads the service.
  func borrow(by run: UInt64, node: String) {
    state.withLock { $0.borrowers[run] = node }
  }

  /// Records that run `run` no longer reads the service.
  func giveBack(by run: UInt64) {
    state.withLock { _ = $0.borrowers.removeValue(forKey: run) }
  }

  /// The nodes whose runs read the service still, by name.
  var borrowers: [String] {
    state.withLock { $0.borrowers.sorted { $0.key < $1.key }.map(\.value) }
  }
}
