import Synchronization

/// A child node that holds one of its overrides itself, so that a scope such as
/// `parent.child { $0.retries = 5 }` allocates one object rather than a node and a ``Slot``.
///
/// `child(_:fileID:line:_:)` hands its closure values that may make a node
/// (``EnvironmentValues/Purpose/configuringChild``). The first value of plain data the closure
/// writes is then stored in a new ``TypedOverrideNode`` instead of a slot (see
/// ``EnvironmentValues/store(_:key:name:anchor:)``), and `child` *adopts* that node as the
/// child: it gives it its parent, name and origin before anyone else can see it. A node that
/// cannot be adopted (the closure kept a copy of its values, so another reference exists) is
/// turned into a slot instead, and a plain node made.
///
/// The held value never changes: values that were read from the node keep reading it, as a
/// snapshot should. A later write to the node moves it into the node's overrides as a slot
/// (``slot``) and stops reading it from here; so does anything that needs the overrides as a
/// map (a child's snapshot, `explain`, a tree dump). The node keeps the value until it is
/// freed, which is why only plain data is held here: it keeps no object alive.
@usableFromInline
class OverrideNode: EnvironmentNode, @unchecked Sendable {
  // @unchecked: `key`, `nameSource`, `anchor` and the typed value are `let`s of `Sendable`
  // types; `site` is written once, when `child` adopts the node, while `child` holds its only
  // reference; `materialized` is atomic.

  /// The identity of the entry or key type the held value is stored for.
  @usableFromInline final let key: ObjectIdentifier
  /// Where the held value's name comes from; see ``Slot/nameSource``.
  final let nameSource: SlotName
  /// Keeps an entry's object, and so its identity, alive; see ``Slot/anchor``.
  final let anchor: (any AnyObject & Sendable)?
  /// Where the held value was set, but for the node's name: recorded when `child` adopts the
  /// node. Kept apart rather than as an ``EnvironmentOrigin``, whose copies cost more.
  @exclusivity(unchecked) private final var site: (fileID: String, line: UInt, serial: UInt64)?
  /// The held value as a slot, once something needed it as one.
  private let materialized = AtomicLazyReference<Slot>()

  @usableFromInline
  init(key: ObjectIdentifier, name: SlotName, anchor: (any AnyObject & Sendable)?) {
    self.key = key
    self.nameSource = name
    self.anchor = anchor
    super.init(unadopted: ())
  }

  /// Whether a write of `key` to values holding this node, in a `child` closure, may make a
  /// new node in its place: only while no `child` has adopted this one, and only for its key.
  @inlinable
  final func takesWrite(of key: ObjectIdentifier) -> Bool {
    isUnadopted && self.key == key
  }

  /// Records where the held value was set; only `child`, before the node is shared.
  final func recordSite(fileID: String, line: UInt, serial: UInt64) {
    site = (fileID, line, serial)
  }

  /// Where the held value was set, once `child` adopted the node.
  final var origin: EnvironmentOrigin? {
    site.map {
      EnvironmentOrigin(fileID: $0.fileID, line: $0.line, nodeName: name, serial: $0.serial)
    }
  }

  /// The held value as a slot, with the node's origin: made once, on first use.
  final var slot: Slot {
    if let slot = materialized.load() { return slot }
    return materialized.storeIfNil(makeSlot())
  }

  /// The held value, type-erased, for diagnostics.
  var anyValue: any Sendable { preconditionFailure("OverrideNode is abstract") }

  func makeSlot() -> Slot { preconditionFailure("OverrideNode is abstract") }
}

/// An ``OverrideNode`` holding a value of a known type; see ``TypedSlot`` for why a read may
/// downcast to it unchecked.
@usableFromInline
final class TypedOverrideNode<Value: Sendable>: OverrideNode, @unchecked Sendable {
  // @unchecked: see `OverrideNode`.
  @usableFromInline let value: Value

  @inlinable
  init(
    _ value: Value, key: ObjectIdentifier, name: SlotName, anchor: (any AnyObject & Sendable)?
  ) {
    self.value = value
    super.init(key: key, name: name, anchor: anchor)
  }

  override var anyValue: any Sendable { value }

  override func makeSlot() -> Slot {
    TypedSlot(value, key: key, name: nameSource, origin: origin, anchor: anchor)
  }
}
