/// How an operation bounded by a deadline ended.
enum DeadlineOutcome<Value: Sendable>: Sendable {
  /// It finished in time, with its result.
  case finished(Result<Value, any Error>)
  /// The deadline passed first; the operation was cancelled.
  case timedOut
}

/// Runs an operation for at most a given time, cancelling it when the time passes.
///
/// - Parameters:
///   - limit: How long the operation may take.
///   - operation: The operation.
/// - Returns: Its result, or ``DeadlineOutcome/timedOut``.
func withDeadline<Value: Sendable>(
  _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async -> DeadlineOutcome<Value> {
  await withTaskGroup(of: DeadlineOutcome<Value>?.self) { group in
    group.addTask {
      do {
        return .finished(.success(try await operation()))
      } catch {
        return .finished(.failure(error))
      }
    }
    group.addTask {
      do {
        try await Task.sleep(for: limit)
        return .timedOut
      } catch {
        return nil
      }
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first ?? .timedOut
  }
}
