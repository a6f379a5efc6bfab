import Synchronization

/// A reference set at most once, then read with one atomic load: what
/// `Synchronization.AtomicLazyReference` does, compiled into the caller.
///
/// `AtomicLazyReference` is not inlined across the module boundary and looks up its generic
/// types at every call, which made it the most expensive step of a derived value's cached read.
/// This one keeps the reference's address in an atomic word, retained while stored: the word is
/// the address itself, untagged, so the leak sanitizer recognises it as a pointer.
///
/// ```swift
/// let cells = LazyReference<DerivedCellTable>()
/// let table = cells.load() ?? cells.storeIfNil(DerivedCellTable())
/// ```
@usableFromInline
struct LazyReference<Instance: AnyObject>: ~Copyable, @unchecked Sendable {
  // @unchecked: the word is only loaded and exchanged atomically; the instance it names is
  // retained from the store until the reference's end and never changed.
  @usableFromInline let address = Atomic<UInt>(0)

  @usableFromInline
  init() {}

  deinit {
    let stored = address.load(ordering: .acquiring)
    if let pointer = UnsafeRawPointer(bitPattern: stored) {
      Unmanaged<Instance>.fromOpaque(pointer).release()
    }
  }

  /// The instance, if one was stored.
  @inlinable @inline(__always)
  func load() -> Instance? {
    guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) else {
      return nil
    }
    return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// The instance, if one was stored, unretained: valid while this reference is.
  @inlinable @inline(__always)
  func loadUnretained() -> Unmanaged<Instance>? {
    guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) else {
      return nil
    }
    return Unmanaged<Instance>.fromOpaque(pointer)
  }

  /// Stores `instance` unless an instance is stored already; returns the one stored.
  @inlinable
  func storeIfNil(_ instance: Instance) -> Instance {
    let retained = Unmanaged.passRetained(instance)
    let (exchanged, original) = address.compareExchange(
      expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
      ordering: .acquiringAndReleasing)
    if exchanged { return instance }
    retained.release()
    guard let pointer = UnsafeRawPointer(bitPattern: original) else { return instance }
    return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
  }
}
