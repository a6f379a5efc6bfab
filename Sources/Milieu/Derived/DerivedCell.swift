import Dispatch
import Synchronization

/// One built value of a ``EnvironmentValues/Derived``, with the inputs it was built from; or
/// the build of one, in progress, that other readers wait for.
///
/// A cell is claimed by the thread that builds it, filled once, and then never changed, except
/// that it can be discarded.
@usableFromInline
class DerivedCell: @unchecked Sendable {
  // @unchecked: `inputs`, `dependencies`, `anchor` and `isProvisional` are written once, by the
  // builder, before `readiness` is set, and read only after it is; `heldDerivation` only under
  // the lock of the slot table that holds the cell; the rest is immutable, atomic, or guarded
  // by `state`.

  enum Phase {
    case building
    case ready
    /// The build threw or closed a cycle: its waiters read the fallback.
    case failed
    /// No value: a marker left where a build was claimed, when what it read put the value in
    /// another table. A reader that chose this table before the build learned its keys looks
    /// again.
    case moved
  }

  /// The value's derivation. Unowned: a derivation's own table holds its cells, and a cell
  /// that held the derivation back would never be freed; see `heldDerivation`.
  unowned(unsafe) let derivation: Derivation
  /// The derivation, held while the cell is in a slot's table, whose key is the derivation's
  /// address: no other derivation may take that address, and so that key, while the cell is
  /// there.
  @exclusivity(unchecked) var heldDerivation: Derivation?
  let name: SlotName
  /// The thread that builds the value.
  let builder: UInt

  private let state = Lock<(phase: Phase, waiters: Int, wakeup: DispatchSemaphore?)>(
    (.building, 0, nil))

  /// What the build read, each key once. The reads hold their slots, but the anchor's, which
  /// holds this cell: so no slot's address is reused while a read compares it.
  @exclusivity(unchecked) private(set) var inputs: [AccessRecorder.Read] = []
  /// The kept derived values the build read, directly or not: discarding one stales this one.
  @exclusivity(unchecked) private(set) var dependencies: [DerivedCell] = []
  /// Whether the value was built from a fallback: delivered to the readers that waited for it,
  /// and not kept.
  @exclusivity(unchecked) var isProvisional = false
  /// The slot the value is kept with, if any.
  @exclusivity(unchecked) private(set) var anchor: ObjectIdentifier?

  private let discarded = Atomic<Bool>(false)
  /// Whether the value is built: set, with releasing ordering, once everything above is
  /// written, and never cleared. A cached read checks it without the lock.
  private let readiness = Atomic<Bool>(false)
  /// Whether a read that sees other inputs was reported; a value kept for the process reports
  /// only the first.
  let reportedMismatch = Atomic<Bool>(false)

  @usableFromInline
  init(derivation: Derivation, name: SlotName) {
    self.derivation = derivation
    self.name = name
    self.builder = currentThreadID()
  }

  var phase: Phase { state.withLock { $0.phase } }

  /// Whether the value is built.
  var isReady: Bool { readiness.load(ordering: .acquiring) }

  /// The value, type-erased, for diagnostics; `nil` until it is built.
  var anyValue: Any? { nil }

  /// Whether the value was built from the inputs `values` sees and nothing it read was
  /// discarded since.
  func isCurrent(in values: EnvironmentValues) -> Bool {
    guard !isDiscarded else { return false }
    for index in dependencies.indices where dependencies[index].isDiscarded { return false }
    return hasInputs(of: values)
  }

  /// Whether `values` sees the slots this value was built from.
  func hasInputs(of values: EnvironmentValues) -> Bool {
    for index in inputs.indices where !inputs[index].matches(values) { return false }
    return true
  }

  var isDiscarded: Bool { discarded.load(ordering: .acquiring) }

  /// Marks the value discarded: no read uses it again.
  func discard() { discarded.store(true, ordering: .releasing) }

  /// Records what the build read, before ``finish(_:)`` makes it visible.
  func record(_ reads: consuming [AccessRecorder.Read], cells: [DerivedCell], anchor: Slot?) {
    var reads = reads
    var kept = 0
    for index in reads.indices {
      let key = reads[index].identifier
      guard !reads[..<kept].contains(where: { $0.identifier == key }) else { continue }
      reads.swapAt(kept, index)
      if anchor != nil, reads[kept].slot === anchor { reads[kept].slot = nil }
      kept += 1
    }
    reads.removeSubrange(kept...)
    inputs = reads
    dependencies = cells
    self.anchor = anchor.map(ObjectIdentifier.init)
  }

  /// Ends the build and wakes every reader waiting for it.
  func finish(_ phase: Phase) {
    if phase == .ready { readiness.store(true, ordering: .releasing) }
    let (waiters, wakeup) = state.withLock { state in
      state.phase = phase
      return (state.waiters, state.wakeup)
    }
    for _ in 0..<waiters { wakeup?.signal() }
  }

  /// Waits until the build ends, unless waiting would close a cycle of threads that wait for
  /// each other's builds; then returns that cycle, this cell first.
  func waitUntilBuilt() -> [DerivedCell]? {
    if let cycle = DerivationWaits.register(waitingFor: self) { return cycle }
    defer { DerivationWaits.unregister() }
    let wakeup = state.withLock { state -> DispatchSemaphore? in
      guard case .building = state.phase else { return nil }
      state.waiters += 1
      if state.wakeup == nil { state.wakeup = DispatchSemaphore(value: 0) }
      return state.wakeup
    }
    wakeup?.wait()
    return nil
  }
}

/// A cell holding a value of a known type.
@usableFromInline
final class TypedDerivedCell<Value: Sendable>: DerivedCell, @unchecked Sendable {
  // @unchecked: `value` is written once, like `inputs`; see `DerivedCell`.
  @exclusivity(unchecked) @usableFromInline var value: Value?

  override var anyValue: Any? { value }
}

/// The cells kept in one place (a slot, or a derivation for values with no anchor), by
/// derivation.
final class DerivedCellTable: @unchecked Sendable {
  // @unchecked: `cells` is read and written only while `lock` is held. A spin lock, since
  // every critical section is a lookup or a store, and a cached read takes it.
  private let lock = SpinLock()
  @exclusivity(unchecked) private var cells = CellMap()
  /// The slot this table belongs to, `nil` for a derivation's own; unowned, since the slot
  /// holds the table and the table is reached only through it.
  unowned(unsafe) let anchor: Slot?

  init(anchor: Slot?) {
    self.anchor = anchor
  }

  private func withLock<Result>(_ body: (inout CellMap) -> Result)
    -> Result
  {
    lock.lock()
    defer { lock.unlock() }
    return body(&cells)
  }

  /// The cell of a derivation, in whatever phase.
  func cell(for key: ObjectIdentifier) -> DerivedCell? {
    withLock { $0[key] }
  }

  enum Claim {
    /// A value built from the inputs of the values asked about.
    case ready(DerivedCell)
    /// A build in progress on another thread, perhaps from the same inputs.
    case building(DerivedCell)
    /// A new cell, in the table, for the caller to build.
    case claimed(DerivedCell)
    /// The value was moved to another table since the caller chose this one.
    case moved
  }

  /// The cell of `derivation` that `values` can use, or one being built; else a new cell that
  /// the caller builds.
  func claim(
    _ derivation: Derivation, in values: EnvironmentValues, overMoved: Bool,
    making name: SlotName
  ) -> Claim {
    withLock { cells in
      if let cell = cells[derivation.key] {
        switch cell.phase {
        case .moved: if !overMoved { return .moved }
        case .building: return .building(cell)
        case .ready:
          if derivation.lifetime == .onePerProcess
            ? !cell.isDiscarded : cell.isCurrent(in: values)
          {
            return .ready(cell)
          }
        case .failed: break
        }
      }
      let cell = derivation.makeCell(derivation, name)
      put(cell, in: &cells)
      return .claimed(cell)
    }
  }

  /// Keeps a built cell here, unless a cell here is current for `values` already; returns the
  /// cell kept.
  func keep(_ cell: DerivedCell, in values: EnvironmentValues) -> DerivedCell {
    withLock { cells in
      let key = cell.derivation.key
      if let kept = cells[key], kept !== cell, kept.phase == .ready, kept.isCurrent(in: values) {
        return kept
      }
      put(cell, in: &cells)
      return cell
    }
  }

  /// Stores a cell under its derivation's key, holding the derivation if this is a slot's
  /// table; the table's lock must be held.
  private func put(_ cell: DerivedCell, in cells: inout CellMap) {
    if anchor != nil { cell.heldDerivation = cell.derivation }
    cells[cell.derivation.key] = cell
  }

  /// Leaves a marker in place of a cell whose value is kept in another table, if the cell is
  /// still here.
  func forward(_ cell: DerivedCell) {
    let marker = DerivedCell(derivation: cell.derivation, name: cell.name)
    marker.finish(.moved)
    withLock { cells in
      if cells[cell.derivation.key] === cell { put(marker, in: &cells) }
    }
  }

  /// Takes a cell out of the table, if it is still there.
  func remove(_ cell: DerivedCell) {
    withLock { cells in
      if cells[cell.derivation.key] === cell { cells[cell.derivation.key] = nil }
    }
  }

  /// The cells that hold a built value, for diagnostics.
  var builtCells: [DerivedCell] {
    withLock { Array($0.values) }.filter { $0.phase == .ready && !$0.isDiscarded }
  }
}

/// Which thread waits for which build, process-wide, to find threads that would wait for each
/// other forever. Only a reader about to wait for another thread's build takes its lock; no
/// build, and no read of a built value, does.
enum DerivationWaits {
  private static let waiting = Lock<[UInt: DerivedCell]>([:])

  /// Records that this thread waits for `cell`, unless the thread that builds it waits, through
  /// others, for this one; then returns the cells of that cycle.
  static func register(waitingFor cell: DerivedCell) -> [DerivedCell]? {
    let me = currentThreadID()
    return waiting.withLock { waiting in
      var cycle = [cell]
      var builder = cell.builder
      while builder != me {
        guard let next = waiting[builder] else {
          waiting[me] = cell
          return nil
        }
        cycle.append(next)
        builder = next.builder
      }
      return cycle
    }
  }

  static func unregister() {
    let me = currentThreadID()
    waiting.withLock { $0[me] = nil }
  }
}
