import Synchronization

/// What a ``SlotMap`` holds: one ``Slot``, or a ``SlotTable`` of several.
///
/// A class that both derive from, rather than an enum with a case for each: an enum of two class
/// references keeps its case in the pointer's spare high bits, and the leak sanitizer, which
/// finds live objects by scanning memory for pointers to them, does not recognise such a
/// pointer, so it reported every table as leaked.
@usableFromInline
class SlotStorage: @unchecked Sendable {
  // @unchecked: immutable here; see the subclasses.
  /// Whether this is a ``SlotTable`` rather than a ``Slot``: one load tells a lookup which.
  @usableFromInline final let isTable: Bool

  @usableFromInline
  init(isTable: Bool) {
    self.isTable = isTable
  }
}

/// One stored value with what diagnostics need to know about it.
///
/// A class, so that copying values between nodes (resolving, merging) retains one object per
/// value instead of each of its fields. The value itself lives in the ``TypedSlot`` subclass, so
/// a read that knows the value's type takes it out without a dynamic cast.
@usableFromInline
class Slot: SlotStorage, @unchecked Sendable {
  // @unchecked: every stored property is a `let` of a `Sendable` type, here and in `TypedSlot`,
  // except `origin`, written once before the slot is shared; the class is not final only so
  // that `TypedSlot` can add the typed value.

  /// The identity of the entry or key type the value is stored for.
  @usableFromInline final let key: ObjectIdentifier
  /// Where the name of the value comes from, for explanations and tree dumps; see ``name``.
  @usableFromInline final let nameSource: SlotName
  /// Where the value was set, when a node set it.
  ///
  /// A node stamps the slots an update wrote, after the update and before anyone else can see
  /// them (see ``SlotMap/stamp(_:)``), so writing a value needs no origin at hand; once the slot
  /// is shared, the origin never changes again. That makes the runtime's exclusivity checks
  /// redundant.
  @exclusivity(unchecked) final var origin: EnvironmentOrigin?
  /// How deep in its tree the node that holds the slot is, stamped with `origin`; a slot no node
  /// holds (written to free-standing values) counts as deepest. Derived values are cached with
  /// the deepest slot they read, which every node that sees that slot shares.
  @exclusivity(unchecked) final var depth: UInt32 = .max
  /// What a layer above keeps with the slot, freed with it: the derived values kept with it.
  final let attachment = LazyReference<AnyObject>()
  /// Keeps an entry's object, and so its identity, alive as long as a value is stored for it.
  final let anchor: (any AnyObject & Sendable)?

  @usableFromInline
  init(
    key: ObjectIdentifier, name: SlotName, origin: EnvironmentOrigin?,
    anchor: (any AnyObject & Sendable)?
  ) {
    self.key = key
    self.nameSource = name
    self.origin = origin
    self.anchor = anchor
    super.init(isTable: false)
  }

  deinit {
    LockAudit.assertNoneHeld("a stored value is released")
  }

  /// The accessor or key name.
  final var name: String { nameSource.description }

  /// The value, type-erased, for diagnostics.
  var anyValue: any Sendable { preconditionFailure("Slot is abstract; TypedSlot overrides this") }

  /// The same value and key, with another origin.
  func copy(origin: EnvironmentOrigin, depth: UInt32) -> Slot {
    preconditionFailure("Slot is abstract; TypedSlot overrides this")
  }
}

/// A ``Slot`` holding a value of a known type.
///
/// A key's identity fixes its value's type (an `Entry<Value>` object, or an `EnvironmentKey`
/// type and its `Value`), and an entry's slot keeps the entry alive, so its identity cannot be
/// reused while the slot exists. A read through a key therefore downcasts the slot it finds to
/// `TypedSlot<Value>` without checking in optimized builds.
@usableFromInline
final class TypedSlot<Value: Sendable>: Slot, @unchecked Sendable {
  @usableFromInline let value: Value

  /// Inlinable, so that a write in the caller's module is specialized for the value's type and
  /// moves the value in, instead of copying it through its type's value witnesses.
  @inlinable
  init(
    _ value: Value, key: ObjectIdentifier, name: SlotName, origin: EnvironmentOrigin? = nil,
    anchor: (any AnyObject & Sendable)?
  ) {
    self.value = value
    super.init(key: key, name: name, origin: origin, anchor: anchor)
  }

  override var anyValue: any Sendable { value }

  override func copy(origin: EnvironmentOrigin, depth: UInt32) -> Slot {
    let copy = TypedSlot(value, key: key, name: nameSource, origin: origin, anchor: anchor)
    copy.depth = depth
    return copy
  }
}

/// The name of a stored value: an entry's accessor, or a key type.
///
/// Both are kept as they come, with nothing to retain or release: the name is spelled out only
/// when a diagnostic shows it.
@usableFromInline
enum SlotName: @unchecked Sendable, CustomStringConvertible {
  // @unchecked: a metatype is immutable and may be shared between threads; Swift 6.3 does not
  // yet treat existential metatypes as `Sendable`.
  case accessor(StaticString)
  case key(any EnvironmentKey.Type)

  @usableFromInline
  var description: String {
    switch self {
    case .accessor(let accessor): accessor.description
    case .key(let key): String(describing: key)
    }
  }
}

/// Slots by key: a persistent map, small and allocation-free for the sizes a node's overrides
/// usually have.
///
/// An empty map is `nil` and a map of one slot is the slot itself, so a node with one override
/// allocates nothing but the slot. Larger maps share a ``SlotTable`` between copies and copy it
/// on the first write to a shared one. The map is one reference.
@usableFromInline
struct SlotMap: Sendable {
  @usableFromInline var storage: SlotStorage?

  @usableFromInline
  init(_ storage: SlotStorage?) {
    self.storage = storage
  }

  static var empty: SlotMap { SlotMap(nil) }

  /// The slot stored for a key.
  @inlinable
  func slot(for key: ObjectIdentifier) -> Slot? {
    unretainedSlot(for: key)?.takeUnretainedValue()
  }

  /// The slot stored for a key, unretained: valid while this map is.
  @inlinable
  func unretainedSlot(for key: ObjectIdentifier) -> Unmanaged<Slot>? {
    guard let storage else { return nil }
    return Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
      if storage.isTable {
        return unsafeDowncast(storage, to: SlotTable.self).slot(for: key).map {
          .passUnretained($0)
        }
      }
      let slot = unsafeDowncast(storage, to: Slot.self)
      return slot.key == key ? .passUnretained(slot) : nil
    }
  }

  var isEmpty: Bool { storage == nil }

  /// The slots, in the order they were first stored.
  var slots: [Slot] {
    guard let storage else { return [] }
    if storage.isTable { return Array(unsafeDowncast(storage, to: SlotTable.self).slots) }
    return [unsafeDowncast(storage, to: Slot.self)]
  }

  /// Stores a slot, replacing the one stored for the same key.
  mutating func insert(_ slot: consuming Slot) {
    guard let existing = storage.take() else {
      storage = slot
      return
    }
    guard existing.isTable else {
      let one = unsafeDowncast(consume existing, to: Slot.self)
      storage = one.key == slot.key ? slot : SlotTable(one, slot)
      return
    }
    // This map's reference was taken out above, so that `table` may be the only one.
    var table = unsafeDowncast(consume existing, to: SlotTable.self)
    if !isKnownUniquelyReferenced(&table) { table = SlotTable(copying: table) }
    table.insert(slot)
    storage = table
  }

  /// Records where every slot of this map was written.
  ///
  /// A slot only this map holds is stamped in place; one that is shared (code that wrote it
  /// kept a copy of the values) is replaced by a stamped copy, so what was shared never changes.
  mutating func stamp(_ origin: consuming EnvironmentOrigin, depth: UInt32) {
    guard let existing = storage.take() else { return }
    guard existing.isTable else {
      var slot = unsafeDowncast(consume existing, to: Slot.self)
      Self.stamp(&slot, origin, depth: depth)
      storage = slot
      return
    }
    var table = unsafeDowncast(consume existing, to: SlotTable.self)
    if !isKnownUniquelyReferenced(&table) { table = SlotTable(copying: table) }
    table.stamp(origin, depth: depth)
    storage = table
  }

  fileprivate static func stamp(_ slot: inout Slot, _ origin: EnvironmentOrigin, depth: UInt32) {
    guard isKnownUniquelyReferenced(&slot) else {
      slot = slot.copy(origin: origin, depth: depth)
      return
    }
    slot.origin = origin
    slot.depth = depth
  }

  /// This map with every slot of `other` stored over it.
  func merging(_ other: SlotMap) -> SlotMap {
    if other.isEmpty { return self }
    if isEmpty { return other }
    var merged = self
    for slot in other.slots { merged.insert(slot) }
    return merged
  }

  /// This map without the slots of the given keys.
  func removing(_ keys: Set<ObjectIdentifier>) -> SlotMap {
    var kept = SlotMap.empty
    for slot in slots where !keys.contains(slot.key) { kept.insert(slot) }
    return kept
  }
}

/// The storage of a ``SlotMap`` of two slots or more.
///
/// Up to ``indexThreshold`` slots a lookup compares keys in order, which beats hashing at these
/// sizes; beyond it the table keeps an index from key to position.
@usableFromInline
final class SlotTable: SlotStorage, @unchecked Sendable {
  // @unchecked: a table is changed only through `SlotMap.insert`, and only while that map holds
  // the sole reference to it; once shared, it is never changed again. For the same reason the
  // runtime's exclusivity checks are off: they would cost a read more than the lookup itself.
  @exclusivity(unchecked) @usableFromInline private(set) var slots: ContiguousArray<Slot>
  /// Positions in `slots` by key; empty while the table is small enough to scan.
  @exclusivity(unchecked) @usableFromInline private(set) var index: [ObjectIdentifier: Int] = [:]

  @usableFromInline static var indexThreshold: Int { 8 }

  /// A table of two slots for different keys.
  init(_ first: Slot, _ second: Slot) {
    self.slots = [first, second]
    super.init(isTable: true)
  }

  /// A table with the same slots as `table`, to change without changing `table`.
  init(copying table: SlotTable) {
    self.slots = table.slots
    self.index = table.index
    super.init(isTable: true)
  }

  @inlinable
  func slot(for key: ObjectIdentifier) -> Slot? {
    if index.isEmpty {
      for slot in slots where slot.key == key { return slot }
      return nil
    }
    return index[key].map { slots[$0] }
  }

  /// Stamps every slot; the table must be held by one map only.
  func stamp(_ origin: EnvironmentOrigin, depth: UInt32) {
    for position in slots.indices { SlotMap.stamp(&slots[position], origin, depth: depth) }
  }

  func insert(_ slot: Slot) {
    if index.isEmpty {
      for position in slots.indices where slots[position].key == slot.key {
        slots[position] = slot
        return
      }
    } else if let position = index[slot.key] {
      slots[position] = slot
      return
    }
    slots.append(slot)
    if !index.isEmpty {
      index[slot.key] = slots.count - 1
    } else if slots.count > Self.indexThreshold {
      for (position, slot) in slots.enumerated() { index[slot.key] = position }
    }
  }
}
