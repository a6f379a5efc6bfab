/// How a host treats a new item while another is shown, duplicates, and a full queue.
///
/// ```swift
/// let host = AlertHost(policy: .init(whenBusy: .enqueue, maximumPending: 8, overflow: .dropOldest))
/// ```
public struct PresentationPolicy: Sendable, Equatable {
  /// What happens to a new item while another is being shown.
  public enum WhenBusy: Sendable, Equatable {
    /// Wait in a first-in, first-out queue. The default.
    case enqueue
    /// Replace the item being shown, which is dropped as replaced; the queue is kept.
    case replace
    /// Drop the new item as busy.
    case dropNew
  }

  /// Which item a full queue drops.
  public enum Overflow: Sendable, Equatable {
    /// Drop the item that arrives at a full queue. The default.
    case dropNew
    /// Drop the oldest pending item to make room for the new one.
    case dropOldest
  }

  /// What happens to a new item while another is being shown.
  public var whenBusy: WhenBusy
  /// Whether an item whose deduplication key matches the shown or a pending item is dropped.
  public var deduplicates: Bool
  /// The most items that may wait; at least 0.
  public var maximumPending: Int
  /// Which item a full queue drops.
  public var overflow: Overflow

  /// Creates a policy.
  ///
  /// - Parameters:
  ///   - whenBusy: What happens to a new item while another is shown.
  ///   - deduplicates: Whether items with a matching deduplication key are dropped.
  ///   - maximumPending: The most items that may wait; negative values count as 0.
  ///   - overflow: Which item a full queue drops.
  public init(
    whenBusy: WhenBusy = .enqueue, deduplicates: Bool = true, maximumPending: Int = 64,
    overflow: Overflow = .dropNew
  ) {
    self.whenBusy = whenBusy
    self.deduplicates = deduplicates
    self.maximumPending = max(0, maximumPending)
    self.overflow = overflow
  }

  /// First in, first out, deduplicating, with up to 64 waiting.
  public static let queue = PresentationPolicy()
  /// The newest item replaces the one shown.
  public static let replace = PresentationPolicy(whenBusy: .replace)
  /// A new item is dropped while another is shown.
  public static let dropNew = PresentationPolicy(whenBusy: .dropNew)
}
