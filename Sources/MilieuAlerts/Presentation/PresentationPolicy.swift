/// How a host treats a new item while another is shown, duplicates, and a full queue.
///
/// ```swift
/// let host = AlertHost(policy: .init(whenBusy: .enqueue, maximumPending: 8, overflow: .dropOldest))
/// ```
public struct PresentationPolicy: Sendable, Equatable {
  /// What happens to a new item while another is being shown.
  public enum WhenBusy: Sendable, Equatable {
    /// Wait in the queue: higher ``Presentable/priority`` first, first in, first out within
    /// one priority. The default.
    case enqueue
    /// Replace the item being shown, which is dropped as replaced, whatever either's priority;
    /// the queue is kept.
    case replace
    /// Drop the new item as busy, whatever its priority.
    case dropNew
  }

  /// Which item a full queue drops.
  ///
  /// Both rules drop an item of the lowest ``Presentable/priority`` among the waiting items and
  /// the newcomer, so a lower priority never pushes out a higher one. With one priority, they
  /// drop the newcomer or the oldest waiting item.
  ///
  /// ```swift
  /// let host = AlertHost(policy: .init(maximumPending: 1, overflow: .dropNew))
  /// host.show(AlertData(title: "Shown"))
  /// host.show(AlertData(title: "Tip", priority: .low))           // waits
  /// host.show(AlertData(title: "Disk full", priority: .high))    // drops "Tip", waits
  /// host.show(AlertData(title: "Another tip", priority: .low))   // dropped: the queue is full
  /// ```
  public enum Overflow: Sendable, Equatable {
    /// Drop the newest item of the lowest priority: the one that arrives at a full queue,
    /// unless it goes ahead of the last waiting item, which is then dropped instead. The
    /// default.
    case dropNew
    /// Drop the oldest waiting item of the lowest priority to make room for the new one, unless
    /// the new one alone has that priority, which is then dropped instead.
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

  /// Higher priority first and first in, first out within one, deduplicating, with up to 64
  /// waiting.
  public static let queue = PresentationPolicy()
  /// The newest item replaces the one shown.
  public static let replace = PresentationPolicy(whenBusy: .replace)
  /// A new item is dropped while another is shown.
  public static let dropNew = PresentationPolicy(whenBusy: .dropNew)
}
