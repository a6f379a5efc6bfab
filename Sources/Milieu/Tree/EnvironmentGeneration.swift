import Synchronization

/// The process-wide counters that keep cached reads fresh.
///
/// Every write to any node's overrides stores the change first and then advances
/// ``generation``. A cache (a node's resolved values, an ``Environment`` wrapper's value) records
/// the generation it loaded *before* it read the data it caches, and is trusted only while that
/// generation is still at least the current one. So a cached value is never older than the last
/// write that completed before the read began, and a read that finds its cache fresh costs one
/// atomic load and the cache's own check: an uncontended lock, or for a wrapper's one-word value
/// two more atomic loads.
@usableFromInline
enum EnvironmentGeneration {
  @usableFromInline static let counter = Atomic<UInt64>(1)
  private static let serials = Atomic<UInt64>(0)

  /// The generation now in force.
  @inlinable static var current: UInt64 { counter.load(ordering: .acquiring) }

  /// Marks every cache stale; called after a write has been stored.
  static func advance() {
    counter.add(1, ordering: .releasing)
  }

  /// A fresh serial number for a write's origin.
  static func nextSerial() -> UInt64 {
    serials.wrappingAdd(1, ordering: .relaxed).newValue
  }
}
