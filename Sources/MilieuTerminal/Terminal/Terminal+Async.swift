#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Terminal {
  /// Shows `alert` and waits for the user's choice without blocking a thread of the concurrency
  /// pool; cancelling the task takes the alert down.
  ///
  /// The alert is presented exactly as by the synchronous ``present(_:)``, on a thread started
  /// for it. If the task is cancelled before or while the alert is up, the terminal is restored
  /// and ``TerminalAnswer/cancelled`` is returned — at once when the task was cancelled before
  /// the call, without drawing anything.
  ///
  /// ```swift
  /// let task = Task { try await presenter.present(alert) }
  /// task.cancel()
  /// try await task.value  // .cancelled
  /// ```
  ///
  /// - Parameters:
  ///   - alert: The alert to show.
  ///   - isolation: The actor the call returns to; inferred from the caller.
  /// - Returns: The button chosen, or how the alert ended without one.
  /// - Throws: ``TerminalError`` if reading, writing or starting the thread fails; the terminal
  ///   is restored first.
  public func present(
    _ alert: TerminalAlert, isolation: isolated (any Actor)? = #isolation
  ) async throws(TerminalError) -> TerminalAnswer {
    if Task.isCancelled { return .cancelled }
    let wakeUp = try CancellationPipe()
    defer { wakeUp.close() }
    let presenter = self
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<TerminalAnswer, TerminalError>, Never>) in
        let started = DetachedThread.run {
          continuation.resume(
            returning: Result { () throws(TerminalError) in
              try presenter.present(alert, cancellation: wakeUp.readEnd)
            })
        }
        if !started {
          continuation.resume(
            returning: .failure(TerminalError(operation: "pthread_create", code: EAGAIN)))
        }
      }
    } onCancel: {
      wakeUp.signal()
    }
    return try result.get()
  }
}
