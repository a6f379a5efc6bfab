import Synchronization

/// Where a node keeps the ``EnvironmentValues/Derived`` values built from its writes: one cache
/// per node, which every own frame the node ever has shares, so that no write moves a value
/// from one frame to another. A free-standing ``EnvironmentValues`` that keeps a value has one
/// of its own, made when first needed, and so does a child's closure before its node exists.
///
/// A write also gives one, *parked*, to the views it retires: the values it evicted stay there
/// for whoever still holds those views, values taken before the write, and go with them.
///
/// It holds at most one cell per derived value, and a generation that every write reaching the
/// node bumps, as the write evicts the cells built from what it replaced. A build keeps its cell
/// only if the generation it checked the cell's inputs under still holds (see
/// `AnyDerived.placement(of:in:)`). The node is named unretained, so that values taken from the
/// node keep its cache, never the node; it is used only through ``withNode(_:)``, which pins
/// it: the node's `deinit` waits until no pin is left before it lets go of the cache.
final class DerivedCache: Sendable {
  typealias Entry = (derivation: AnyDerived, cell: DerivedCell)

  private struct State {
    var cells: [Entry] = []
    var node: UnretainedNode?
    /// The node's name, which outlives the node: where the records of its frames were written.
    var nodeName: String?
    /// How many threads use the node now: its deinit waits until none does.
    var pins = 0
    /// Whether the cache had a node that is gone, or stopped keeping values (its node overrides
    /// nothing any more): nothing is kept here again.
    var isOrphaned = false
    /// Whether this is where a write parks what it evicts: it keeps a cell for each set of
    /// inputs, and is bound to no node.
    var isParking = false
  }

  private let state: Lock<State>
  /// Bumped by every write that reaches the node. Read and bumped atomically, so that a write
  /// takes the lock only when a cell may be here: a keep counts its cell in `count` before it
  /// reads the generation, a write bumps the generation before it reads `count`, so either the
  /// keep sees the write or the write sees the cell.
  private let generationWord = Atomic<UInt64>(0)
  private let count = Atomic<Int>(0)

  init(node: EnvironmentNode? = nil) {
    state = Lock(State(node: node.map(UnretainedNode.init), nodeName: node?.name))
  }

  /// A cache a write parks what it evicts in: it keeps nothing else.
  init(parking: Void) {
    state = Lock(State(isOrphaned: true, isParking: true))
  }

  deinit {
    LockAudit.assertNoneHeld("a cache of derived values is released")
  }

  /// The name of the node whose cache this is, for origins.
  var nodeName: String? { state.withLock { $0.nodeName } }

  /// Whether a cell may be kept here: a write that finds none evicts nothing.
  var mayHoldCells: Bool { count.load(ordering: .relaxed) > 0 }

  /// The generation now.
  var generation: UInt64 { generationWord.load(ordering: .sequentiallyConsistent) }

  /// What the cache is bound to.
  enum Binding {
    /// No node yet: free-standing values', or a child's closure's.
    case unbound
    /// A node, whose writes have bumped the generation to this.
    case bound(generation: UInt64)
    /// A node that is gone, or keeps nothing any more.
    case orphaned
  }

  var binding: Binding {
    state.withLock { state in
      state.isOrphaned
        ? .orphaned
        : state.node == nil ? .unbound : .bound(generation: generation)
    }
  }

  /// Runs `body`, with no lock held, with the cache's node and the generation read before it,
  /// pinned so that it cannot be freed meanwhile; `nil` if the cache has no node.
  func withNode<Result>(_ body: (EnvironmentNode, _ generation: UInt64) -> Result) -> Result? {
    let pinned = state.withLock { state -> (UnretainedNode, UInt64)? in
      guard !state.isOrphaned, let node = state.node else { return nil }
      state.pins += 1
      return (node, generation)
    }
    guard let (node, generation) = pinned else { return nil }
    defer { state.withLock { $0.pins -= 1 } }
    return node.withNode { body($0, generation) }
  }

  /// Makes `node` this cache's node: a child's, made after its closure ran.
  func bind(to node: EnvironmentNode) {
    state.withLock { state in
      state.node = UnretainedNode(node)
      state.nodeName = node.name
    }
  }

  /// Lets go of the node, which is freed or keeps nothing any more, once no thread uses it;
  /// returns the cells, which the caller releases with no lock held.
  func orphan() -> [Entry] {
    while true {
      let cells = state.withLock { state -> [Entry]? in
        guard state.pins == 0 else { return nil }
        state.node = nil
        state.isOrphaned = true
        count.store(0, ordering: .relaxed)
        defer { state.cells = [] }
        return state.cells
      }
      if let cells { return cells }
      yieldThread()
    }
  }

  /// The cell kept for `derivation`.
  func cell(for derivation: AnyDerived) -> DerivedCell? {
    guard count.load(ordering: .relaxed) > 0 else { return nil }
    return state.withLock { state in
      for entry in state.cells where entry.derivation === derivation { return entry.cell }
      return nil
    }
  }

  /// Of the cells parked here for `derivation`, one for each set of inputs, the one current in
  /// `values`.
  func parkedCell(for derivation: AnyDerived, in values: EnvironmentValues) -> DerivedCell? {
    guard count.load(ordering: .relaxed) > 0 else { return nil }
    let cells = state.withLock { state in
      state.cells.filter { $0.derivation === derivation }.map(\.cell)
    }
    return cells.first { $0.isCurrent(in: values) }
  }

  /// Whether this is where a write parks what it evicts.
  var isParking: Bool { state.withLock { $0.isParking } }

  /// Parks cells a write evicted, or built from values taken before it, for those values.
  func park(_ cells: [DerivedCell]) {
    guard !cells.isEmpty else { return }
    state.withLock { state in
      state.cells += cells.map { ($0.derivation, $0) }
      count.add(cells.count, ordering: .relaxed)
    }
  }

  /// What became of a keep.
  enum Keep {
    /// Kept, in place of the cell it returns, which the caller releases with no lock held.
    case kept(replacing: DerivedCell?)
    /// Another build for the same inputs kept this one first: the readers get it.
    case keptFirst(DerivedCell)
    /// A write reached the node since `generation` was read: the generation now.
    case moved(UInt64)
    /// The cache keeps nothing any more.
    case refused
  }

  /// Keeps `cell` for its derived value if the generation is still `generation` (always, for
  /// `nil`). Call it holding the derived value's `claims`.
  func keep(_ cell: DerivedCell, ifGeneration generation: UInt64?) -> Keep {
    state.withLock { state in
      guard !state.isOrphaned else { return .refused }
      count.add(1, ordering: .sequentiallyConsistent)
      let now = generationWord.load(ordering: .sequentiallyConsistent)
      if let generation, now != generation {
        count.subtract(1, ordering: .relaxed)
        return .moved(now)
      }
      guard let index = state.cells.firstIndex(where: { $0.derivation === cell.derivation }) else {
        state.cells.append((cell.derivation, cell))
        return .kept(replacing: nil)
      }
      count.subtract(1, ordering: .relaxed)
      let kept = state.cells[index].cell
      if !kept.isDiscarded, kept.hasTheInputs(of: cell) { return .keptFirst(kept) }
      state.cells[index].cell = cell
      return .kept(replacing: kept)
    }
  }

  /// Bumps the generation and evicts every cell that read one of `replaced`, or a value evicted
  /// or discarded, in turn; returns the new generation. A write calls it holding the node's
  /// lock: the cells evicted are parked in `parked`, if given, and go in `evicted`, which the
  /// write releases once no lock is held, and their stamps in `replaced`, so that what was built
  /// from them elsewhere goes too.
  @discardableResult
  func evict(
    _ replaced: inout ReplacedWrites, parkingIn parked: DerivedCache? = nil,
    into evicted: inout [DerivedCell]
  ) -> UInt64 {
    let generation = generationWord.add(1, ordering: .sequentiallyConsistent).newValue
    guard count.load(ordering: .sequentiallyConsistent) > 0 else { return generation }
    state.withLock { state in
      // A value evicted evicts what was built from it. Cells are kept after what they read, so
      // one pass in order finds a chain; go round until nothing more goes.
      var isEvicting = true
      while isEvicting {
        isEvicting = false
        var kept = 0
        for index in state.cells.indices {
          let cell = state.cells[index].cell
          if cell.isDiscarded || cell.reads(anyOf: replaced) {
            evicted.append(cell)
            replaced.insert(Stamped(key: cell.derivation.key, stamp: cell.stamp))
            isEvicting = true
          } else {
            state.cells.swapAt(kept, index)
            kept += 1
          }
        }
        // Parked before they go: a reader that misses them here finds them there.
        parked?.park(state.cells[kept...].map(\.cell))
        count.subtract(state.cells.count - kept, ordering: .relaxed)
        state.cells.removeLast(state.cells.count - kept)
      }
    }
    return generation
  }

  /// Evicts every cell: a child's closure kept them from values a write above has since changed.
  func evictAll() {
    let evicted = state.withLock { state in
      defer { state.cells = [] }
      count.store(0, ordering: .relaxed)
      return state.cells
    }
    for entry in evicted { entry.cell.discard() }
  }

  /// The cells that hold a built value, for diagnostics.
  var builtCells: [DerivedCell] {
    state.withLock { state in state.cells.map(\.cell) }.filter { !$0.isDiscarded }
  }
}

extension DerivedCell {
  /// Whether this cell read any of `writes`, or a value that is discarded.
  func reads(anyOf writes: ReplacedWrites) -> Bool {
    dependencies.contains { $0.isDiscarded }
      || inputs.contains { writes.contains(Stamped(key: $0.key, stamp: $0.stamp)) }
  }

  /// Whether this cell was built from the very inputs `other` was.
  func hasTheInputs(of other: DerivedCell) -> Bool {
    inputs.count == other.inputs.count
      && inputs.allSatisfy { input in
        other.inputs.contains { $0.key == input.key && $0.stamp == input.stamp }
      }
  }
}

/// The writes a write replaced, with the stamps its node saw for them, and the values evicted
/// since: a few in place, many in a set.
struct ReplacedWrites {
  private var few = SmallList<Stamped>()
  private var many: Set<Stamped> = []

  init() {}

  var isEmpty: Bool { few.isEmpty }

  mutating func insert(_ write: Stamped) {
    if few.count < 2 { few.append(write) } else { many.insert(write) }
  }

  func contains(_ write: Stamped) -> Bool {
    few.contains(write) || !many.isEmpty && many.contains(write)
  }
}
