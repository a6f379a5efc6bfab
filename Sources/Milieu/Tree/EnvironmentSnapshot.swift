import Synchronization

/// The values a node sees, resolved: its overrides (`top`) laid over everything above it
/// provides (`base`, one map). Immutable once made, so any number of nodes and readers share it.
///
/// A node without overrides caches the snapshot of the node its values come from, the same
/// object. A node with overrides caches that snapshot too, and makes a snapshot of its own from
/// it, once per write that reaches it, at its first read or its first child's: so values read
/// from a node hold an object that node made, and readers of different requests under one app
/// node do not write to the app's objects (see `State.snapshot(of:retiring:)`).
@usableFromInline
final class EnvironmentSnapshot: Sendable {
  /// The node whose own values these are, when they are a node's own (its overrides over what
  /// its parent sees); `nil` for a snapshot that a node shares from above. A snapshot lives no
  /// longer than the subtree of its owner, so the identifier cannot name another node meanwhile.
  let owner: ObjectIdentifier?
  @usableFromInline let top: SlotMap
  @usableFromInline let base: SlotMap
  /// The two maps merged, made on first use and then read with one atomic load.
  private let flat = LazyReference<SlotStorage>()

  init(owner: ObjectIdentifier?, top: SlotMap, base: SlotMap) {
    self.owner = owner
    self.top = top
    self.base = base
  }

  deinit {
    LockAudit.assertNoneHeld("a snapshot of values is released")
  }

  /// What a root's parent would provide: nothing.
  static let nothing = EnvironmentSnapshot(owner: nil, top: .empty, base: .empty)

  /// The slot stored for a key, unretained: valid while this snapshot is.
  @inlinable
  func unretainedSlot(for key: ObjectIdentifier) -> Unmanaged<Slot>? {
    top.unretainedSlot(for: key) ?? base.unretainedSlot(for: key)
  }

  /// The values as one map.
  ///
  /// Always inlined: called out of line on a snapshot read from a node's state, the call made
  /// the compiler retain and release the snapshot around it.
  @inline(__always)
  var flattened: SlotMap {
    if top.isEmpty { return base }
    if base.isEmpty { return top }
    if let flat = flat.load() { return SlotMap(flat) }
    // Both maps hold a slot, so the merged map holds one too: its storage is never nil.
    guard let merged = base.merging(top).storage else { return .empty }
    return SlotMap(flat.storeIfNil(merged))
  }
}
