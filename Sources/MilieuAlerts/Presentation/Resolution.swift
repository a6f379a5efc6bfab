import Milieu

/// Delivers an item's outcome exactly once.
///
/// The first ``resolve(_:)`` wins and later ones are ignored. If the last reference goes away
/// before anyone resolved it — a custom action that dropped its completion — it resolves as
/// ``DropReason/unanswered``, so a continuation waiting on it never leaks.
package final class Resolution<Choice: Sendable & Equatable & CustomStringConvertible>: Sendable {
  package typealias Completion = @Sendable (PresentationOutcome<Choice>) -> Void

  private let completion: Lock<Completion?>

  package init(_ completion: @escaping Completion) {
    self.completion = Lock(completion)
  }

  /// Delivers the outcome, unless one was delivered before.
  ///
  /// - Returns: Whether this call delivered it.
  @discardableResult
  package func resolve(_ outcome: PresentationOutcome<Choice>) -> Bool {
    guard let completion = completion.withLock({ $0.take() }) else { return false }
    completion(outcome)
    return true
  }

  deinit {
    if let completion = completion.withLock({ $0.take() }) {
      completion(.dropped(.unanswered))
    }
  }
}

/// A weak, thread-safe reference to a resolution.
final class WeakResolution<Choice: Sendable & Equatable & CustomStringConvertible>: Sendable {
  private let reference = Lock(Reference())

  private struct Reference: Sendable {
    weak var resolution: Resolution<Choice>?
  }

  func set(_ resolution: Resolution<Choice>) {
    reference.withLock { $0.resolution = resolution }
  }

  func get() -> Resolution<Choice>? {
    reference.withLock { $0.resolution }
  }
}
