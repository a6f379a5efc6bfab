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

  /// The generation now in force.
  @inlinable static var current: UInt64 { counter.load(ordering: .acquiring) }

  /// Marks every cache stale; called after a write has been stored.
  static func advance() {
    counter.add(1, ordering: .releasing)
  }

  /// The serial number of a write's origin, which orders the writes to one node: a child's
  /// overrides, written at its creation, then each update.
  ///
  /// Made from the generation at the time of the write, rather than taken from a counter of
  /// its own, so that making a child changes no memory that every thread shares: a write
  /// advances the generation once it is stored, so a later write to the same node gets a
  /// larger number, and an update made at the generation a child was made at still comes
  /// after the child's overrides. Writes that race to one node may get the same number.
  static func serial(ofWriteAt generation: UInt64, isUpdate: Bool) -> UInt64 {
    generation << 1 | (isUpdate ? 1 : 0)
  }
}
