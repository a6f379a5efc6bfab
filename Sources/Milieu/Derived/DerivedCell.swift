import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One built value of a ``EnvironmentValues/Derived``, with the inputs it was built from; or
/// the build of one, under way, that other readers wait for.
///
/// A cell is claimed by the thread that builds it, filled once, and then never changed, except
/// that it can be discarded.
@usableFromInline
class DerivedCell: @unchecked Sendable {
  // @unchecked: `claimKeys`, `claimHash` and `builder` are written by `init` and the claim,
  // under the derivation's `claims` lock, before any other thread sees the cell; `inputs`,
  // `dependencies`, `anchor`, `isProvisional` and `replacement` are written once, by the builder,
  // before `finish` publishes them with releasing ordering, and read only after an acquiring
  // load of the phase; `heldDerivation` only under the lock of the table that holds the cell;
  // the rest is immutable or atomic.

  /// The value's derivation. Unowned: a derivation's own table holds its cells, and a cell
  /// that held the derivation back would never be freed; see `heldDerivation`.
  unowned(unsafe) let derivation: AnyDerived
  /// The derivation, held while the cell is in a slot's table, whose key is the derivation's
  /// address: no other derivation may take that address, and so that key, while the cell is
  /// there.
  @exclusivity(unchecked) var heldDerivation: AnyDerived?
  let name: SlotName
  /// The thread that builds the value.
  let builder: UInt

  /// The keys learned when the build was claimed, and a hash of the addresses of the slots the
  /// claimer saw for them: a reader whose slots hash the same waits for this build rather than
  /// build one of its own. Two sets of slots that hash alike cost the second reader a wait, then
  /// a build of its own, never a value from other inputs: a waiter checks the inputs it gets.
  @exclusivity(unchecked) private var claimKeys: KeyList?
  @exclusivity(unchecked) private var claimHash: UInt64 = 0

  /// What the build read, each key once. The reads hold their slots, but the anchor's, which
  /// holds this cell: so no slot's address is reused while a read compares it.
  @exclusivity(unchecked) private(set) var inputs: [ReadRecorder.Read] = []
  /// The kept derived values the build read, directly or not: discarding one stales this one.
  @exclusivity(unchecked) private(set) var dependencies: [DerivedCell] = []
  /// Whether the value was built from a fallback: handed to the readers that waited for it,
  /// and not kept.
  @exclusivity(unchecked) var isProvisional = false
  /// The slot the value is kept with, if any.
  @exclusivity(unchecked) private(set) var anchor: ObjectIdentifier?
  /// The cell its readers get instead, when another build for the same inputs was kept first.
  @exclusivity(unchecked) var replacement: DerivedCell?

  private let phaseCode = Atomic<UInt8>(Phase.building.rawValue)
  private let wakeup = Lock<(waiters: Int, semaphore: DispatchSemaphore?)>((0, nil))
  private let discarded = Atomic<Bool>(false)
  /// Whether a read that sees other inputs was reported; a value kept for the process reports
  /// only the first.
  let reportedMismatch = Atomic<Bool>(false)

  enum Phase: UInt8 {
    case building
    case ready
    /// The build threw or closed a cycle: its waiters look again, and build themselves.
    case failed
  }

  @usableFromInline
  init(derivation: AnyDerived, name: SlotName) {
    self.derivation = derivation
    self.name = name
    self.builder = currentThreadID()
  }

  deinit {
    LockAudit.assertNoneHeld("a derived value is released")
  }

  var phase: Phase { Phase(rawValue: phaseCode.load(ordering: .acquiring)) ?? .failed }

  /// Whether the value is built.
  var isReady: Bool { phase == .ready }

  /// The value, type-erased, for diagnostics; `nil` until it is built.
  var anyValue: Any? { nil }

  /// Records what the claim was made from; under `claims`, before anyone else sees the cell.
  func claim(keys: KeyList, in values: EnvironmentValues) {
    claimKeys = keys
    claimHash = Self.hash(of: keys.keys, in: values)
  }

  /// Whether `values` sees the slots the claim was made from, as far as their hash tells.
  func claimMatches(_ values: EnvironmentValues) -> Bool {
    Self.hash(of: claimKeys?.keys ?? [], in: values) == claimHash
  }

  /// A hash of the addresses of the slots `values` sees for `keys`.
  private static func hash(of keys: [ObjectIdentifier], in values: EnvironmentValues) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for key in keys {
      let address = values.unretainedSlot(for: key).map { UInt(bitPattern: $0.toOpaque()) } ?? 0
      hash = (hash ^ UInt64(address)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }

  /// Whether the value was built from the inputs `values` sees and nothing it read was
  /// discarded since.
  func isCurrent(in values: EnvironmentValues) -> Bool {
    guard !isDiscarded else { return false }
    for index in dependencies.indices where dependencies[index].isDiscarded { return false }
    return hasInputs(of: values)
  }

  /// Whether `values` sees the slots this value was built from.
  func hasInputs(of values: EnvironmentValues) -> Bool {
    for index in inputs.indices where !inputs[index].isSeen(in: values) { return false }
    return true
  }

  var isDiscarded: Bool { discarded.load(ordering: .acquiring) }

  /// Marks the value discarded: no read uses it again.
  func discard() { discarded.store(true, ordering: .releasing) }

  /// Records what the build read, before ``finish(_:)`` makes it visible. The reads are each of
  /// one key already (the recorder saw to it).
  func record(_ reads: consuming [ReadRecorder.Read], cells: [DerivedCell], anchor: Slot?) {
    var reads = reads
    if let anchor {
      for index in reads.indices where reads[index].slot === anchor { reads[index].slot = nil }
    }
    inputs = reads
    dependencies = cells
    self.anchor = anchor.map(ObjectIdentifier.init)
  }

  /// Ends the build: from now on readers see the phase. Call it under the derivation's
  /// `claims`, where readers decide, so that none finds the cell kept but still building; then
  /// ``wakeWaiters()``.
  func finish(_ phase: Phase) {
    phaseCode.store(phase.rawValue, ordering: .releasing)
  }

  /// Wakes every reader waiting for the build, which ``finish(_:)`` ended.
  func wakeWaiters() {
    let (waiters, semaphore) = wakeup.withLock { $0 }
    for _ in 0..<waiters { semaphore?.signal() }
  }

  /// Waits until the build ends, unless waiting would close a cycle of threads that wait for
  /// each other's builds; then returns that cycle, this cell first.
  func waitUntilBuilt() -> [DerivedCell]? {
    if let cycle = DerivationWaits.register(waitingFor: self) { return cycle }
    defer { DerivationWaits.unregister() }
    let semaphore = wakeup.withLock { state -> DispatchSemaphore? in
      // Checked under the lock `finish` reads the count under: a build that ends after this
      // sees the waiter and signals it.
      guard phase == .building else { return nil }
      state.waiters += 1
      if state.semaphore == nil { state.semaphore = DispatchSemaphore(value: 0) }
      return state.semaphore
    }
    semaphore?.wait()
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

/// The cells kept in one place (a slot, or a derivation for values with no anchor), one per
/// derivation.
final class DerivedCellTable: @unchecked Sendable {
  // @unchecked: `cells` is read and written only while `lock` is held. A spin lock, since
  // every critical section is a lookup or a store, and a cached read takes it.
  private let lock = VersionedLock()
  @exclusivity(unchecked) private var cells = CellMap()
  /// The slot this table belongs to, `nil` for a derivation's own; unowned, since the slot
  /// holds the table and the table is reached only through it.
  unowned(unsafe) let anchor: Slot?

  init(anchor: Slot?) {
    self.anchor = anchor
  }

  private func withLock<Result>(_ body: (inout CellMap) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&cells)
  }

  /// The cell kept for a derivation.
  func cell(for key: ObjectIdentifier) -> DerivedCell? {
    withLock { $0[key] }
  }

  /// Keeps a built cell, in place of the one kept before for its derivation, which it returns:
  /// the caller releases it once no lock is held, since a cell's last release frees its value.
  /// Holds the derivation if this is a slot's table.
  func keep(_ cell: DerivedCell) -> DerivedCell? {
    withLock { cells -> DerivedCell? in
      if anchor != nil { cell.heldDerivation = cell.derivation }
      defer { cells[cell.derivation.key] = cell }
      return cells[cell.derivation.key]
    }
  }

  /// The cells that hold a built value, for diagnostics.
  var builtCells: [DerivedCell] {
    withLock { Array($0.values) }.filter { $0.isReady && !$0.isDiscarded }
  }
}

/// Which thread waits for which build, process-wide, to find threads that would wait for each
/// other forever. Only a reader about to wait for another thread's build takes its lock; no
/// build, and no read of a built value, does.
enum DerivationWaits {
  private static let waiting = Lock<[UInt: DerivedCell]>([:])

  /// Records that this thread waits for `cell`, unless the thread that builds it waits, through
  /// others, for this one; then returns the cells of that cycle.
  ///
  /// Every cell on the way must still be building: a thread registered as waiting for a build
  /// that has finished is about to wake, and is no edge. Phases only move forward, and a thread
  /// waiting for a cell that is still building cannot finish its own builds meanwhile; so a
  /// chain found building cell by cell is a chain of threads that all wait at once, and one that
  /// comes back to this thread, through a cell this thread builds (and so has not finished),
  /// would never end.
  static func register(waitingFor cell: DerivedCell) -> [DerivedCell]? {
    let me = currentThreadID()
    return waiting.withLock { waiting in
      var cycle = [cell]
      var next = cell
      while next.phase == .building {
        if next.builder == me { return cycle }
        guard let waited = waiting[next.builder] else { break }
        cycle.append(waited)
        next = waited
      }
      waiting[me] = cell
      return nil
    }
  }

  static func unregister() {
    let me = currentThreadID()
    waiting.withLock { $0[me] = nil }
  }

  /// The readers waiting for a build of `derivation` now: what tests wait for to make a build
  /// finish only once another thread waits for it.
  static func readersWaiting(for derivation: AnyDerived) -> Int {
    waiting.withLock { $0.values.filter { $0.derivation === derivation }.count }
  }

  /// Whether a build of `derivation` is under way: what tests wait for to read a value while
  /// another thread builds it.
  static func isBuilding(_ derivation: AnyDerived) -> Bool {
    derivation.claims.withLock { !$0.isEmpty }
  }
}

/// An identifier of the calling thread, to tell which thread builds a value.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}
