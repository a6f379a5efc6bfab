import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a ``EnvironmentValues/Derived`` value has that does not depend on its type: its
/// lifetime, where it was declared, the keys its builds have read, and the cells kept with no
/// slot.
///
/// Where a built value is kept. A value of lifetime `onePerInputs` is kept in a cell on the
/// *anchor*, the deepest slot among those its build read: every node that sees that slot sees
/// every shallower one its build read too, unless it overrides one of them below, which makes
/// a deeper slot its anchor. So nodes that see the same inputs look in the same place, a node
/// that overrides one looks elsewhere, and the value lives as long as its anchor, which is as
/// long as the node that set it (or values copied from it). A value built from defaults alone
/// has no anchor and is kept in ``cells``, for the process, as is a value of lifetime
/// `onePerProcess`.
///
/// Before a build, Milieu cannot know what it will read; it looks for the anchor among the keys
/// that earlier builds read (``learnedKeys``). A cell also records the slot of every input, and
/// a read uses it only if its own values have the same slots; so a guess that is wrong costs a
/// build, never a stale value.
@usableFromInline
final class Derivation: Sendable {
  let lifetime: EnvironmentValues.DerivedLifetime
  /// Where the value is declared: the call site of its issues.
  let declaration: CallSite
  /// Cells of values built from defaults alone, and of values kept for the process.
  let cells = DerivedCellTable(anchor: nil)
  /// The first list of learned keys; see ``learnedKeys``.
  private let firstKeys = KeyList([])
  /// Makes an empty cell for the value's type.
  let makeCell: @Sendable (Derivation, SlotName) -> DerivedCell
  /// Builds the value from the values given, into a cell `makeCell` made.
  let fill: @Sendable (DerivedCell, EnvironmentValues) throws -> Void
  /// Puts the fallback into a cell `makeCell` made; `nil` when there is no fallback.
  let fillWithFallback: (@Sendable (DerivedCell) -> Void)?

  /// Creates a derivation from the closures that know the value's type; see
  /// ``EnvironmentValues/Derived/init(_:fallback:fileID:filePath:line:column:_:)``, which
  /// makes them where the value is declared, so that they are specialized there.
  @usableFromInline
  init(
    lifetime: EnvironmentValues.DerivedLifetime, declaration: CallSite,
    makeCell: @escaping @Sendable (Derivation, SlotName) -> DerivedCell,
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

  /// The longest list of learned keys: every key a build of this value has read so far.
  /// Unretained: lists live as long as the derivation.
  private var learnedKeys: Unmanaged<KeyList> {
    var list = Unmanaged.passUnretained(firstKeys)
    while let next = list._withUnsafeGuaranteedRef({ $0.next.loadUnretained() }) { list = next }
    return list
  }

  /// Whether every key of `reads` is among ``learnedKeys``.
  func knows(_ reads: [AccessRecorder.Read]) -> Bool {
    learnedKeys._withUnsafeGuaranteedRef { list in
      reads.allSatisfy { list.keys.contains($0.identifier) }
    }
  }

  /// The anchor (see ``anchor(in:)``) that `values` gives when the keys of `reads` are learned
  /// too, before they are.
  func anchor(in values: EnvironmentValues, adding reads: [AccessRecorder.Read])
    -> Unmanaged<Slot>?
  {
    var anchor = self.anchor(in: values)
    for read in reads {
      guard let slot = values.unretainedSlot(for: read.identifier) else { continue }
      if let current = anchor, !Self.outranks(slot, current) { continue }
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

  /// Adds the keys of `reads` to ``learnedKeys``. Lists are never changed, only followed by
  /// longer ones, so reading the keys takes no lock.
  func learn(_ reads: [AccessRecorder.Read]) {
    var list = learnedKeys.takeUnretainedValue()
    while !reads.allSatisfy({ list.keys.contains($0.identifier) }) {
      var missing: [ObjectIdentifier] = []
      for read in reads where !list.keys.contains(read.identifier) {
        if !missing.contains(read.identifier) { missing.append(read.identifier) }
      }
      let longer = KeyList(list.keys + missing)
      list = list.next.storeIfNil(longer)
      while let next = list.next.load() { list = next }
    }
  }

  /// The slot a build seen through `values` is kept with: the deepest slot of a learned key,
  /// on a tie the one whose key's identity is largest; `nil` when `values` set none of them.
  ///
  /// The order is the same for every derivation, so a cell holds only slots below its anchor
  /// in it, and cells kept with two slots of one node never hold each other's slots: their
  /// references cannot form a cycle.
  func anchor(in values: EnvironmentValues) -> Unmanaged<Slot>? {
    learnedKeys._withUnsafeGuaranteedRef { list in
      var anchor: Unmanaged<Slot>?
      for key in list.keys {
        guard let slot = values.unretainedSlot(for: key) else { continue }
        if let current = anchor, !Self.outranks(slot, current) { continue }
        anchor = slot
      }
      return anchor
    }
  }

  /// The table in which to look for, or keep, the value seen through `values`.
  func table(in values: EnvironmentValues) -> DerivedCellTable {
    guard lifetime == .onePerInputs, let anchor = anchor(in: values) else { return cells }
    return Self.table(of: anchor)
  }

  /// The table of the values kept with a slot, made at the first one.
  static func table(of anchor: Unmanaged<Slot>) -> DerivedCellTable {
    anchor._withUnsafeGuaranteedRef { slot in
      slot.derivedCells.load() ?? slot.derivedCells.storeIfNil(DerivedCellTable(anchor: slot))
    }
  }

  // MARK: Reads made while a value is built

  /// The number of values of lifetime `newOnEveryRead` read so far, process-wide. An
  /// ``Environment`` wrapper whose read changed it does not keep what it read.
  static let freshReads = Atomic<UInt>(0)

  @usableFromInline
  static var freshReadCount: UInt { freshReads.load(ordering: .relaxed) }

  /// The innermost build running on this thread, kept in thread-specific storage, unretained:
  /// the build that set it holds it until it restores the one before.
  private static let innermostKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// The recorder of the innermost build on this thread, if a value is being built.
  static var innermost: AccessRecorder? {
    pthread_getspecific(innermostKey).map {
      Unmanaged<AccessRecorder>.fromOpaque($0).takeUnretainedValue()
    }
  }

  /// Runs `body` as the innermost build on this thread, then makes the recorder's parent the
  /// innermost again: the parent must be the innermost build when this is called.
  static func building<Result>(with recorder: AccessRecorder, _ body: () -> Result) -> Result {
    let previous = recorder.building?.parent.map { Unmanaged.passUnretained($0).toOpaque() }
    pthread_setspecific(innermostKey, Unmanaged.passUnretained(recorder).toOpaque())
    defer { pthread_setspecific(innermostKey, previous) }
    return body()
  }
}

/// One build in progress, as its recorder knows it: what is built, and the build it is part of.
struct DerivationFrame: Sendable {
  let derivation: Derivation
  let name: SlotName
  /// The build that read this value, on the same thread.
  let parent: AccessRecorder?
  /// Whether the value, or one that reads it, is kept and shared by several nodes.
  let isShared: Bool
  /// The values the build reads, whose reporter its issues go to.
  let values: EnvironmentValues

  init(derivation: Derivation, name: SlotName, parent: AccessRecorder?, values: EnvironmentValues) {
    self.derivation = derivation
    self.name = name
    self.parent = parent
    self.isShared =
      derivation.lifetime != .newOnEveryRead || parent?.building?.isShared == true
    self.values = values.unrecorded
  }

  /// Where the build's issues go.
  var reporter: IssueReporter { values.issueReporter }

  /// The builds in progress on this thread, innermost first.
  var chain: [DerivationFrame] {
    var frames = [self]
    while let parent = frames[frames.count - 1].parent?.building { frames.append(parent) }
    return frames
  }
}

/// An append-only list of keys; see ``Derivation/learn(_:)``.
final class KeyList: Sendable {
  let keys: [ObjectIdentifier]
  let next = LazyReference<KeyList>()

  init(_ keys: [ObjectIdentifier]) {
    self.keys = keys
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
