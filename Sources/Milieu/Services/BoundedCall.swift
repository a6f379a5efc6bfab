/// Runs an operation bounded by a timeout: it returns when the operation ends or when the
/// timeout has passed on a clock, whichever comes first, and cancels the other.
///
/// The operation and the wait run in tasks of their own, so cancelling the caller cancels
/// neither: a stop goes on, within its bound, when the program is told to stop. An operation
/// that outlives its bound is cancelled and left to end by itself.
final class BoundedCall: Sendable {
  enum Outcome: Sendable {
    case returned
    case threw(any Error)
    case timedOut
  }

  private struct State {
    var continuation: CheckedContinuation<Outcome, Never>?
    var outcome: Outcome?
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
  }

  private let state = Lock(State())

  /// Runs `operation`, bounded by `timeout` on `clock`.
  static func run(
    timeout: Duration, clock: any Clock<Duration>,
    _ operation: @escaping @Sendable () async throws -> Void
  ) async -> Outcome {
    let call = BoundedCall()
    return await withCheckedContinuation { continuation in
      call.state.withLock { $0.continuation = continuation }
      let work = Task {
        do {
          try await operation()
          call.finish(.returned)
        } catch {
          call.finish(.threw(error))
        }
      }
      let timer = Task {
        // Cancelled: the operation ended first.
        guard (try? await clock.sleep(for: timeout)) != nil else { return }
        call.finish(.timedOut)
      }
      call.started(work: work, timer: timer)
    }
  }

  /// Keeps the two tasks, to cancel the one that loses; if the race is over, cancels it now.
  private func started(work: Task<Void, Never>, timer: Task<Void, Never>) {
    let outcome = state.withLock { state in
      state.work = work
      state.timer = timer
      return state.outcome
    }
    if let outcome { cancelLoser(of: outcome, work: work, timer: timer) }
  }

  /// Ends the race with its first outcome; later ones change nothing.
  private func finish(_ outcome: Outcome) {
    let won = state.withLock {
      state -> (CheckedContinuation<Outcome, Never>, Task<Void, Never>?, Task<Void, Never>?)? in
      guard state.outcome == nil, let continuation = state.continuation.take() else { return nil }
      state.outcome = outcome
      return (continuation, state.work, state.timer)
    }
    guard let (continuation, work, timer) = won else { return }
    cancelLoser(of: outcome, work: work, timer: timer)
    continuation.resume(returning: outcome)
  }

  private func cancelLoser(of outcome: Outcome, work: Task<Void, Never>?, timer: Task<Void, Never>?)
  {
    if case .timedOut = outcome { work?.cancel() } else { timer?.cancel() }
  }
}
