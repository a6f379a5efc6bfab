/// How soon an item that waits is presented: a host's queue presents higher priorities first
/// and, within one priority, the item that came first.
///
/// Priority orders the waiting items only. It never takes the screen from the item being shown,
/// and the policy's other rules keep their meaning (see ``PresentationPolicy``):
///
/// - ``PresentationPolicy/WhenBusy/replace`` replaces the item shown with the newest, whatever
///   either's priority; ``PresentationPolicy/WhenBusy/dropNew`` drops a newcomer while another
///   is shown, whatever its priority.
/// - Deduplication drops a later item whose key matches one shown or waiting, even when the
///   later one has the higher priority.
/// - A full queue drops one item of the lowest priority among the waiting ones and the newcomer
///   (see ``PresentationPolicy/Overflow``), so a lower priority never pushes out a higher one.
///
/// ```swift
/// host.show(AlertData(title: "Back up your library?"))            // shown
/// host.show(AlertData(title: "Folder is almost full"))            // waits
/// host.show(AlertData(title: "Sync conflict", priority: .high))   // waits, but goes first
/// host.pending.map(\.title)  // ["Sync conflict", "Folder is almost full"]
/// ```
///
/// Priorities are numbers, so an app can place its own between the named ones:
/// `PresentationPriority(50)` goes after ``high`` and before ``normal``.
public struct PresentationPriority: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The priority's number: greater goes first.
  public let rawValue: Int

  /// Creates a priority.
  ///
  /// - Parameter rawValue: The number; greater goes first. ``normal`` is 0.
  public init(_ rawValue: Int) {
    self.rawValue = rawValue
  }

  /// After every other waiting item of a higher priority: −100.
  public static let low = PresentationPriority(-100)
  /// The priority of every item that names none: 0.
  public static let normal = PresentationPriority(0)
  /// Before every waiting item of a lower priority: 100.
  public static let high = PresentationPriority(100)

  /// Whether the left priority goes after the right one.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `low`, `normal`, `high`, or `priority 50` for any other.
  public var description: String {
    switch self {
    case .low: "low"
    case .normal: "normal"
    case .high: "high"
    default: "priority \(rawValue)"
    }
  }
}
