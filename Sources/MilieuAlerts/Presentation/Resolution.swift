@_spi(MilieuInternal) import Milieu

/// Delivers an item's outcome exactly once.
///
/// The first ``resolve(_:)`` wins and later ones are ignored. If the last reference goes away
/// before anyone resolved it — a custom action that dropped its completion — it resolves as
/// ``DropReason/unanswered``, so a continuation waiting on it never leaks.
///
/// Once a host has accepted an answer (``markAnswered()``), the outcome is that answer, delivered
/// when its action has finished: a cancellation that comes meanwhile (``cancel()``) no longer
/// turns it into a drop.
package final class Resolution<Answer: Sendable & Equatable & CustomStringConvertible>: Sendable {
  package typealias Completion = @Sendable (PresentationOutcome<Answer>) -> Void

  private struct State {
    var completion: Completion?
    var isAnswered = false
  }

  private let state: Lock<State>

  package init(_ completion: @escaping Completion) {
    state = Lock(State(completion: completion))
  }

  /// Delivers the outcome, unless one was delivered before.
  ///
  /// - Returns: Whether this call delivered it.
  @discardableResult
  package func resolve(_ outcome: PresentationOutcome<Answer>) -> Bool {
    guard let completion = state.withLock({ $0.completion.take() }) else { return false }
    completion(outcome)
    return true
  }

  /// Records that the host accepted an answer, whose outcome follows.
  ///
  /// - Returns: `false` when the item was already resolved (its awaiting task was cancelled
  ///   first), in which case the answer must not be taken.
  func markAnswered() -> Bool {
    state.withLock { state in
      guard state.completion != nil else { return false }
      state.isAnswered = true
      return true
    }
  }

  /// Resolves as ``DropReason/cancelled``, unless the item was resolved or answered before.
  ///
  /// - Returns: Whether this call resolved it; only then is there anything to withdraw.
  @discardableResult
  func cancel() -> Bool {
    let completion = state.withLock { state in
      state.isAnswered ? nil : state.completion.take()
    }
    guard let completion else { return false }
    completion(.dropped(.cancelled))
    return true
  }

  deinit {
    if let completion = state.withLock({ $0.completion.take() }) {
      completion(.dropped(.unanswered))
    }
  }
}

extension Resolution {
  /// Waits for the outcome of an item that `deliver` hands, with a new resolution, to whatever
  /// answers it; cancelling the waiting task withdraws the item through `withdraw`.
  static func awaitOutcome(
    deliver: (Resolution<Answer>) -> Void, withdraw: @escaping @Sendable () -> Void
  ) async -> PresentationOutcome<Answer> {
    // Weak: whoever handles the item owns the resolution, so that if it lets the resolution go
    // unanswered, the resolution's deinit resumes the continuation.
    let box = WeakResolution<Answer>()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let resolution = Resolution { continuation.resume(returning: $0) }
        box.set(resolution)
        deliver(resolution)
        // Withdrawn only while this showing is unresolved: a showing already answered keeps its
        // answer, and one dropped (a duplicate of a value still shown) must not withdraw the
        // showing it duplicates, which has the same identity.
        if Task.isCancelled, resolution.cancel() {
          withdraw()
        }
      }
    } onCancel: {
      if box.get()?.cancel() == true { withdraw() }
    }
  }
}

/// A weak, thread-safe reference to a resolution.
final class WeakResolution<Answer: Sendable & Equatable & CustomStringConvertible>: Sendable {
  private let reference = Lock(Reference())

  private struct Reference: Sendable {
    weak var resolution: Resolution<Answer>?
  }

  func set(_ resolution: Resolution<Answer>) {
    reference.withLock { $0.resolution = resolution }
  }

  func get() -> Resolution<Answer>? {
    reference.withLock { $0.resolution }
  }
}
