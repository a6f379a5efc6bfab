@_spi(MilieuInternal) import Milieu

/// A clock that moves only when a test advances it, for toasts and anything else that waits.
///
/// ```swift
/// let clock = TestClock()
/// let toasts = app.installToastHost(clock: clock)
/// showToast("Saved", duration: .seconds(2))
/// clock.advance(by: .seconds(2))  // the toast expires now, not in two real seconds
/// ```
public final class TestClock: Clock, Sendable {
  /// A point in the test clock's time: the duration since the clock was made.
  public struct Instant: InstantProtocol {
    /// The time since the clock was made.
    public var offset: Duration

    /// Creates an instant.
    ///
    /// - Parameter offset: The time since the clock was made.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant a duration later.
    ///
    /// - Parameter duration: The duration.
    /// - Returns: The instant.
    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }

    /// The duration from this instant to another.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: The duration.
    public func duration(to other: Self) -> Duration { other.offset - offset }

    /// Whether the left instant comes first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper: Sendable {
    let identifier: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State: Sendable {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextSleeper = 0
  }

  private let state = Lock(State())

  /// Creates a clock at time zero.
  public init() {}

  /// The clock's current time.
  public var now: Instant { state.withLock { $0.now } }
  /// The smallest step: none.
  public var minimumResolution: Duration { .zero }
  /// How many sleepers wait for the clock to move.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Sleeps until the clock reaches a deadline.
  ///
  /// - Parameters:
  ///   - deadline: When to wake.
  ///   - tolerance: Ignored.
  /// - Throws: `CancellationError` if the sleeping task is cancelled; it then stops waiting.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    let identifier = state.withLock { state in
      state.nextSleeper += 1
      return state.nextSleeper
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let ready = state.withLock { state in
          if deadline <= state.now { return true }
          state.sleepers.append(
            Sleeper(identifier: identifier, deadline: deadline, continuation: continuation))
          return false
        }
        if ready {
          continuation.resume()
        } else if Task.isCancelled {
          cancelSleeper(identifier)
        }
      }
    } onCancel: {
      cancelSleeper(identifier)
    }
  }

  private func cancelSleeper(_ identifier: Int) {
    let sleeper = state.withLock { state in
      state.sleepers.firstIndex { $0.identifier == identifier }.map {
        state.sleepers.remove(at: $0)
      }
    }
    sleeper?.continuation.resume(throwing: CancellationError())
  }

  /// Moves the clock forward, waking every sleeper whose deadline has come.
  ///
  /// - Parameter duration: How far to move.
  public func advance(by duration: Duration) {
    let woken = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let woken = state.sleepers.filter { $0.deadline <= now }
      state.sleepers.removeAll { $0.deadline <= now }
      return woken
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }
}
