import Synchronization

/// The identity of one presented item — an alert, a toast — unique in the process.
///
/// ```swift
/// let alert = AlertData(title: "Saved")
/// print(alert.id)  // #42
/// ```
public struct PresentationID: Hashable, Sendable, Comparable, CustomStringConvertible {
  private static let counter = Atomic<UInt64>(0)

  /// The identifier's number; later items have larger numbers.
  public let rawValue: UInt64

  /// Creates a new identifier, different from every other in the process.
  public init() {
    rawValue = Self.counter.add(1, ordering: .relaxed).newValue
  }

  /// Whether the left identifier was made before the right one.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `#42`.
  public var description: String { "#\(rawValue)" }
}
