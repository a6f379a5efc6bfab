@_spi(MilieuInternal) import Milieu
import Synchronization

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

  /// Where the item stands: ``unresolved``, ``answered`` or ``delivered``. One atomic word rather
  /// than a lock, because a generic class runs its `deinit` unspecialized: a lock there looked up
  /// its type's metadata every time a resolution was freed.
  private let phase = Atomic<UInt8>(ResolutionPhase.unresolved)
  private let completion: Completion

  package init(_ completion: @escaping Completion) {
    self.completion = completion
  }

  /// Delivers the outcome, unless one was delivered before.
  ///
  /// - Returns: Whether this call delivered it.
  @discardableResult
  package func resolve(_ outcome: PresentationOutcome<Answer>) -> Bool {
    guard
      phase.exchange(ResolutionPhase.delivered, ordering: .acquiringAndReleasing)
        != ResolutionPhase.delivered
    else { return false }
    assertNoMilieuLockHeld("an outcome is delivered")
    completion(outcome)
    return true
  }

  /// Records that the host accepted an answer, whose outcome follows.
  ///
  /// - Returns: `false` when the item was already resolved (its awaiting task was cancelled
  ///   first), in which case the answer must not be taken.
  func markAnswered() -> Bool {
    phase.compareExchange(
      expected: ResolutionPhase.unresolved, desired: ResolutionPhase.answered,
      ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// Resolves as ``DropReason/cancelled``, unless the item was resolved or answered before.
  ///
  /// - Returns: Whether this call resolved it; only then is there anything to withdraw.
  @discardableResult
  func cancel() -> Bool {
    guard
      phase.compareExchange(
        expected: ResolutionPhase.unresolved, desired: ResolutionPhase.delivered,
        ordering: .acquiringAndReleasing
      ).exchanged
    else { return false }
    completion(.dropped(.cancelled))
    return true
  }

  deinit {
    if phase.load(ordering: .acquiring) != ResolutionPhase.delivered { resolveUnanswered() }
  }

  /// Delivers the outcome of a resolution that goes away unresolved.
  ///
  /// Out of line because a generic class runs its `deinit` unspecialized: an outcome made in the
  /// `deinit` itself had its space reserved on entry, which looked up the outcome type's
  /// metadata every time a resolution was freed, resolved or not.
  @inline(never)
  private func resolveUnanswered() {
    completion(.dropped(.unanswered))
  }
}

/// The phases of a ``Resolution``.
private enum ResolutionPhase {
  static let unresolved: UInt8 = 0
  /// A host accepted an answer; only that answer's outcome may be delivered now.
  static let answered: UInt8 = 1
  static let delivered: UInt8 = 2
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
        let isCancelled = !box.set(resolution)
        deliver(resolution)
        // Withdrawn only while this showing is unresolved: a showing already answered keeps its
        // answer, and one dropped (a duplicate of a value still shown) must not withdraw the
        // showing it duplicates, which has the same identity.
        if isCancelled, resolution.cancel() {
          withdraw()
        }
      }
    } onCancel: {
      if box.takeForCancellation()?.cancel() == true { withdraw() }
    }
  }
}

/// A weak reference to the resolution of an item a task awaits, handed from the task to its
/// cancellation handler, which may run on another thread at any moment.
///
/// The reference is set once and read at most once, so one atomic word orders the two: no
/// lock. A lock made for each awaited item cost two lookups of generic metadata: its
/// initializer, which Milieu does not inline into other modules, ran unspecialized.
///
/// `@unchecked Sendable`: `resolution` is written only by ``set(_:)``, before the releasing
/// exchange of `state` that publishes it, and read only by ``takeForCancellation()``, after an
/// acquiring exchange that found it published; the handler runs at most once.
final class WeakResolution<Answer: Sendable & Equatable & CustomStringConvertible>:
  @unchecked Sendable
{
  private weak var resolution: Resolution<Answer>?
  private let state = Atomic<UInt8>(WeakResolutionState.empty)

  /// Keeps the resolution for the cancellation handler, unless the handler has run.
  ///
  /// - Returns: `false` when the task was cancelled first: the handler found nothing to cancel,
  ///   so the caller cancels the resolution itself.
  func set(_ resolution: Resolution<Answer>) -> Bool {
    self.resolution = resolution
    return state.compareExchange(
      expected: WeakResolutionState.empty, desired: WeakResolutionState.published,
      ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// For the cancellation handler: the resolution, if it was set and still lives. A resolution
  /// set afterwards is cancelled by the caller of ``set(_:)``.
  func takeForCancellation() -> Resolution<Answer>? {
    let found = state.exchange(WeakResolutionState.cancelled, ordering: .acquiringAndReleasing)
    return found == WeakResolutionState.published ? resolution : nil
  }
}

/// The states of a ``WeakResolution``.
private enum WeakResolutionState {
  static let empty: UInt8 = 0
  /// The resolution is set, for the cancellation handler to read.
  static let published: UInt8 = 1
  /// The cancellation handler has run.
  static let cancelled: UInt8 = 2
}
