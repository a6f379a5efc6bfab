import Synchronization

/// What a ``EnvironmentValues/Derived`` value has that does not depend on its type: its
/// lifetime, where it was declared, the keys its builds have read, the builds under way, and
/// the cells kept with no slot.
///
/// Where a built value is kept: a value of lifetime `onePerInputs` is kept in the cell table of
/// its *anchor*, the deepest slot among those its build read. Every node that sees that slot sees
/// every shallower one its build read too, unless it overrides one of them below, which makes a
/// deeper slot its anchor; so nodes that see the same inputs find the value in the same place,
/// and the value lives as long as its anchor, which is as long as the node that set it (or
/// values copied from it). A value built from defaults alone, or one per process, is kept in
/// ``processCells``.
///
/// How a value is built once per set of inputs, the protocol in a paragraph: a read that finds
/// no current cell where the learned keys point takes the derivation's `claims` lock. Under it,
/// it looks for a ready cell for its inputs in every place one can be kept (the table of each
/// learned key's slot it sees, and ``processCells``), then for a build under way whose claim
/// matches it (the same slots for the keys learned when the build was claimed), and waits for
/// that build with no lock held; else it claims a build, which it runs with no lock held. A
/// finished build, under the lock again, learns its keys, keeps its cell with its anchor (or
/// hands its readers the cell that another build for the same inputs kept there first), and wakes
/// its waiters, who look again. `DerivedProtocolModelTests` checks every interleaving of this
/// protocol for two and three readers.
@usableFromInline
final class AnyDerived: Sendable {
  let lifetime: EnvironmentValues.DerivedLifetime
  /// Where the value is declared: the call site of its issues.
  let declaration: CallSite
  /// Cells of values built from defaults alone, and of values kept for the process.
  let processCells = DerivedCellTable(anchor: nil)
  /// Makes an empty cell for the value's type.
  let makeCell: @Sendable (AnyDerived, SlotName) -> DerivedCell
  /// Builds the value from the values given, into a cell `makeCell` made.
  let fill: @Sendable (DerivedCell, EnvironmentValues) throws -> Void
  /// Puts the fallback into a cell `makeCell` made; `nil` when there is no fallback.
  let fillWithFallback: (@Sendable (DerivedCell) -> Void)?
  /// The first list of learned keys; see ``learnedKeys``.
  private let firstKeys = KeyList([], known: [])
  /// The builds under way; guarded with every decision about builds, taken for lookups and
  /// stores only, never while a build runs or a reader waits.
  let claims = Lock<[DerivedCell]>([])

  /// Creates a derivation from the closures that know the value's type; see
  /// ``EnvironmentValues/Derived/init(_:fallback:fileID:filePath:line:column:_:)``, which
  /// makes them where the value is declared, so that they are specialized there.
  @usableFromInline
  init(
    lifetime: EnvironmentValues.DerivedLifetime, declaration: CallSite,
    makeCell: @escaping @Sendable (AnyDerived, SlotName) -> DerivedCell,
    fill: @escaping @Sendable (DerivedCell, EnvironmentValues) throws -> Void,
    fillWithFallback: (@Sendable (DerivedCell) -> Void)?
  ) {
    self.lifetime = lifetime
    self.declaration = declaration
    self.makeCell = makeCell
    self.fill = fill
    self.fillWithFallback = fillWithFallback
  }

  /// The identity of the value, which keys its cells in a table.
  var key: ObjectIdentifier { ObjectIdentifier(self) }

  /// Every key a build of this value has read so far, in the order first read. Lists are never
  /// changed, only followed by longer ones, which only `learn` makes, under `claims`: so a
  /// cached read loads the keys with no lock. Unretained: lists live as long as the derivation.
  var learnedKeys: Unmanaged<KeyList> {
    var list = Unmanaged.passUnretained(firstKeys)
    while let next = list._withUnsafeGuaranteedRef({ $0.next.loadUnretained() }) { list = next }
    return list
  }

  /// Adds the keys of `reads` to ``learnedKeys``; call it holding `claims`.
  func learn(_ reads: [ReadRecorder.Read]) {
    let list = learnedKeys.takeUnretainedValue()
    guard !reads.allSatisfy({ list.known.contains($0.identifier) }) else { return }
    var keys = list.keys
    var known = list.known
    for read in reads where known.insert(read.identifier).inserted {
      keys.append(read.identifier)
    }
    if keys.count > list.keys.count { _ = list.next.storeIfNil(KeyList(keys, known: known)) }
  }

  /// The slot a value built from `keys` and seen through `values` is kept with: the deepest
  /// slot `values` has for one of them, on a tie the one whose key's identity is largest; `nil`
  /// when `values` set none of them.
  ///
  /// The order is the same for every derivation, so a cell holds only slots below its anchor in
  /// it, and cells kept with two slots of one node never hold each other's slots: their
  /// references cannot form a cycle.
  static func anchor(
    in values: EnvironmentValues, keys: some Sequence<ObjectIdentifier>
  ) -> Unmanaged<Slot>? {
    var anchor: Unmanaged<Slot>?
    for key in keys {
      guard let slot = values.unretainedSlot(for: key) else { continue }
      if let current = anchor, !outranks(slot, current) { continue }
      anchor = slot
    }
    return anchor
  }

  /// Whether `slot` makes a better anchor than `other`: it is deeper, or as deep with a larger
  /// key identity.
  @inline(__always)
  static func outranks(_ slot: Unmanaged<Slot>, _ other: Unmanaged<Slot>) -> Bool {
    slot._withUnsafeGuaranteedRef { slot in
      other._withUnsafeGuaranteedRef { other in
        slot.depth > other.depth || (slot.depth == other.depth && slot.key > other.key)
      }
    }
  }

  /// The cell table of a slot, made at the first value kept with it.
  static func table(of anchor: Unmanaged<Slot>) -> DerivedCellTable {
    anchor._withUnsafeGuaranteedRef { slot in
      if let table = slot.attachment.load() {
        return unsafeDowncast(table, to: DerivedCellTable.self)
      }
      return unsafeDowncast(
        slot.attachment.storeIfNil(DerivedCellTable(anchor: slot)), to: DerivedCellTable.self)
    }
  }

  /// The cell table of a slot, if a value was ever kept with it.
  static func existingTable(of slot: Unmanaged<Slot>) -> DerivedCellTable? {
    slot._withUnsafeGuaranteedRef { $0.attachment.load() }.map {
      unsafeDowncast($0, to: DerivedCellTable.self)
    }
  }
}

/// An append-only list of keys; see ``AnyDerived/learnedKeys``.
final class KeyList: Sendable {
  let keys: [ObjectIdentifier]
  /// The same keys, to look one up without a search.
  let known: Set<ObjectIdentifier>
  let next = LazyReference<KeyList>()

  init(_ keys: [ObjectIdentifier], known: Set<ObjectIdentifier>) {
    self.keys = keys
    self.known = known
  }
}
