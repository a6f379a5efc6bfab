import Synchronization

/// One built value of a ``EnvironmentValues/Derived``, with the reads it was built from.
///
/// Made whole when its build ends and never changed after, but that it can be discarded.
@usableFromInline
final class DerivedCell: Sendable {
  /// The value's declaration. Unowned: a declaration's ``AnyDerived/processCell`` holds its
  /// cell; a table that keeps a cell holds the declaration too (see `DerivedCellTable`).
  unowned let derivation: AnyDerived
  let name: ValueName
  /// Tells this value from every other: a value that read this one records this stamp.
  let stamp: UInt64
  @usableFromInline let value: StoredValue
  /// What the build read first-hand, each key once: plain values with the stamps of the writes
  /// it found, and derived values (their `detail` is the declaration) with the stamps of the
  /// values it got.
  let inputs: [ReadRecorder.Read]
  /// The kept derived values the build read first-hand.
  let dependencies: [DerivedCell]
  /// The write whose frame keeps the value; `nil` for a value kept for the process.
  let anchor: Stamped?
  /// Whether the value was built from a fallback: handed to the readers that waited for it,
  /// and not kept.
  let isProvisional: Bool
  private let discarded = Atomic<Bool>(false)
  /// Whether a read that sees other inputs was reported; a value kept for the process reports
  /// only the first.
  let reportedMismatch = Atomic<Bool>(false)
  /// Whether the build read a derived value: checking that one is current checks what it read
  /// in turn.
  private let readsDerived: Bool
  /// For a cell that read a derived value, the values it was last found not current in, by
  /// their frames' ids, which no other frame ever has: frames never change, so it stays so, and
  /// a chain of derived values rebuilt after a write checks each link once, not once for every
  /// link above it.
  private let staleIn = Atomic<WordPair>(WordPair(first: 0, second: 0))

  init(
    derivation: AnyDerived, name: ValueName, value: consuming StoredValue,
    inputs: [ReadRecorder.Read] = [], dependencies: [DerivedCell] = [],
    anchor: Stamped? = nil, isProvisional: Bool = false
  ) {
    self.derivation = derivation
    self.name = name
    self.stamp = Frame.newStamp()
    self.value = value
    self.inputs = inputs
    self.dependencies = dependencies
    self.anchor = anchor
    self.isProvisional = isProvisional
    self.readsDerived = inputs.contains { $0.hasDetail }
  }

  deinit {
    LockAudit.assertNoneHeld("a derived value is released")
  }

  var isDiscarded: Bool { discarded.load(ordering: .acquiring) }

  /// Marks the value discarded: no read uses it again.
  func discard() { discarded.store(true, ordering: .releasing) }

  /// Whether the value was built from what `values` sees, and nothing it read was discarded.
  func isCurrent(in values: EnvironmentValues) -> Bool {
    guard !isDiscarded else { return false }
    guard readsDerived else { return hasInputs(of: values) }
    let key = Self.key(of: values)
    // Never both 0: those values hold no write, so a cell kept with an anchor is current there.
    if staleIn.load(ordering: .relaxed) == key, key != WordPair(first: 0, second: 0) {
      return false
    }
    if hasInputs(of: values) { return true }
    staleIn.store(key, ordering: .relaxed)
    return false
  }

  /// The ids of the frames of `values`; 0 for none, which no frame has.
  private static func key(of values: EnvironmentValues) -> WordPair {
    WordPair(first: UInt(values.own?.id ?? 0), second: UInt(values.base?.id ?? 0))
  }

  /// What the build read, and what each derived value it read was built from, each key once, in
  /// the order first read: for diagnostics.
  var transitiveInputs: [ReadRecorder.Read] {
    var seen: Set<ObjectIdentifier> = []
    var inputs: [ReadRecorder.Read] = []
    var pending: [(cell: DerivedCell, next: Int)] = [(self, 0)]
    while let (cell, next) = pending.popLast() {
      guard next < cell.inputs.count else { continue }
      pending.append((cell, next + 1))
      let input = cell.inputs[next]
      guard seen.insert(input.key).inserted else { continue }
      inputs.append(input)
      if let dependency = cell.dependencies.first(where: { $0.derivation.key == input.key }) {
        pending.append((dependency, 0))
      }
    }
    return inputs
  }

  /// Whether `values` sees every write and derived value this value was built from.
  func hasInputs(of values: EnvironmentValues) -> Bool {
    // By index, so that no input is copied out whole.
    WorkCount.add(inputs.count)
    for index in inputs.indices {
      let stamp =
        inputs[index].hasDetail
        ? Self.stamp(of: inputs[index], in: values) : values.stamp(of: inputs[index].key)
      if stamp != inputs[index].stamp { return false }
    }
    return true
  }

  /// The stamp `values` has for what `input` read: the write it finds, or for a derived value
  /// that none overrides, the value it would read now.
  static func stamp(of input: ReadRecorder.Read, in values: EnvironmentValues) -> UInt64 {
    guard let detail = input.detail, !values.hasRecord(for: input.key) else {
      return values.stamp(of: input.key)
    }
    let derivation = uncheckedDowncast(detail, to: AnyDerived.self)
    return derivation.cachedCell(in: values)?.stamp ?? 0
  }
}

/// The cells kept with one frame, one per derived value: what derived values attach to frames.
///
/// Each cell is kept with its declaration, which the table holds: cells are found by the
/// declaration, whose identity no other can take while this one lives. A frame keeps few
/// derived values, so the table is a list.
final class DerivedCellTable: FrameAttachment {
  typealias Entry = (derivation: AnyDerived, cell: DerivedCell)

  private let cells: Lock<[Entry]>
  /// The table that took this one's place for the node's next frame, once a write dropped
  /// values from it, with every write the replacement left behind: a build claimed before the
  /// write keeps its value where readers now look, unless it read one of those writes.
  private let successor = LazyReference<Succession>()

  init(_ cells: [Entry] = []) {
    self.cells = Lock(cells)
  }

  private func withLock<Result>(_ body: (inout [Entry], Void) -> Result) -> Result {
    cells.withLock { body(&$0, ()) }
  }

  /// The table attached to the own frame that holds the write a read of `key` in `values`
  /// finds, if it has one.
  static func ofHome(of key: ObjectIdentifier, in values: EnvironmentValues) -> DerivedCellTable? {
    values.attachmentOfHome(of: key).map { uncheckedDowncast($0, to: DerivedCellTable.self) }
  }

  /// The table attached to `frame`, made if `create` and there is none.
  static func of(_ frame: Frame, creating create: Bool) -> DerivedCellTable? {
    if let attached = frame.attachment {
      return uncheckedDowncast(attached, to: DerivedCellTable.self)
    }
    guard create else { return nil }
    return uncheckedDowncast(frame.attach(DerivedCellTable()), to: DerivedCellTable.self)
  }

  /// The cell kept for a derived value.
  func cell(for derivation: AnyDerived) -> DerivedCell? {
    withLock { cells, _ in
      for entry in cells where entry.derivation === derivation { return entry.cell }
      return nil
    }
  }

  /// The table that now keeps what this one kept: this one, or its successor's, and so on;
  /// `nil` if `cell` read a write that a successor left behind.
  func latest(for cell: DerivedCell) -> DerivedCellTable? {
    var table = self
    while let next = table.successor.load() {
      if cell.inputs.contains(where: {
        next.replaced.contains(Stamped(key: $0.key, stamp: $0.stamp))
      }) {
        return nil
      }
      table = next.table
    }
    return table
  }

  /// Keeps a built cell, in place of the one kept before for its derived value, which it
  /// returns: the caller releases it once no lock is held, since a cell's last release frees
  /// its value.
  func keep(_ cell: DerivedCell) -> DerivedCell? {
    withLock { cells, _ in
      guard let index = cells.firstIndex(where: { $0.derivation === cell.derivation }) else {
        cells.append((cell.derivation, cell))
        return nil
      }
      defer { cells[index].cell = cell }
      return cells[index].cell
    }
  }

  /// The cells that hold a built value, for diagnostics.
  var builtCells: [DerivedCell] {
    withLock { cells, _ in cells.map(\.cell) }.filter { !$0.isDiscarded }
  }

  func carried(past replaced: inout Set<Stamped>, released: inout [Any]) -> (any FrameAttachment)? {
    let all = withLock { cells, _ in cells }
    // A build that keeps a cell here meanwhile may replace one of these, leaving this copy its
    // last reference: released by the caller, after the write's locks.
    released.append(all)
    var kept = all
    // A dropped value drops what was built from it: go round until nothing more drops.
    var dropped = true
    while dropped {
      dropped = false
      for (index, entry) in kept.enumerated().reversed()
      where entry.cell.inputs.contains(where: {
        replaced.contains(Stamped(key: $0.key, stamp: $0.stamp))
      }) {
        kept.remove(at: index)
        replaced.insert(Stamped(key: entry.derivation.key, stamp: entry.cell.stamp))
        dropped = true
      }
    }
    if kept.count == all.count { return self }
    let next = DerivedCellTable(kept)
    successor.storeIfNil(Succession(table: next, replaced: replaced))
    return next
  }

  func absorb(_ other: any FrameAttachment) {
    let other = uncheckedDowncast(other, to: DerivedCellTable.self)
    let cells = other.withLock { cells, _ in cells }
    withLock { mine, _ in
      for entry in cells where !mine.contains(where: { $0.derivation === entry.derivation }) {
        mine.append(entry)
      }
    }
    other.successor.storeIfNil(Succession(table: self, replaced: []))
  }
}

/// What took a table's place: see `DerivedCellTable.latest(for:)`.
final class Succession: Sendable {
  let table: DerivedCellTable
  let replaced: Set<Stamped>

  init(table: DerivedCellTable, replaced: Set<Stamped>) {
    self.table = table
    self.replaced = replaced
  }
}
