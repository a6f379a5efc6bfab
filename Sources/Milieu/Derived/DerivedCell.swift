import Synchronization

/// One built value of a ``EnvironmentValues/Derived``, with the reads it was built from.
///
/// Made whole when its build ends and never changed after, but that it can be discarded.
@usableFromInline
final class DerivedCell: Sendable {
  /// The value's declaration. Unowned: a declaration's ``AnyDerived/processCell`` holds its
  /// cell; a cache that keeps a cell holds the declaration too (see `DerivedCache`).
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
  /// The nearest write the build read, whose own frame's cache keeps the value; `nil` for a
  /// value kept for the process.
  let anchor: Stamped?
  /// Whether the value was built from a fallback: handed to the readers that waited for it,
  /// and not kept.
  let isProvisional: Bool
  private let discarded = Atomic<Bool>(false)
  /// Whether the build read a derived value: checking that one is current checks what it read
  /// in turn.
  private let readsDerived: Bool
  /// Whether a read that sees other inputs was reported; a value kept for the process reports
  /// only the first.
  let reportedMismatch = Atomic<Bool>(false)

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
  ///
  /// A cell that read derived values checks them in turn. Builds that run now on this thread
  /// remember the cells they found not current in the values they read, so that a chain of
  /// derived values built again checks each link once, not once for every link above it.
  func isCurrent(in values: EnvironmentValues) -> Bool {
    guard !isDiscarded else { return false }
    guard readsDerived, let stale = DerivedBuild.innermost?.staleCells else {
      return hasInputs(of: values)
    }
    if stale.contains(self, in: values) { return false }
    if hasInputs(of: values) { return true }
    stale.insert(self, in: values)
    return false
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

/// The cells that the builds of one chain found not current, each with the values it was
/// checked in, which the chain holds while it runs.
final class StaleCells: Sendable {
  private typealias Found = (cell: DerivedCell, own: Frame?, base: Frame?)
  private let found = Lock<[ObjectIdentifier: Found]>([:])

  /// Whether `cell` was found not current in `values`.
  func contains(_ cell: DerivedCell, in values: EnvironmentValues) -> Bool {
    found.withLock { found in
      // Held here, so the identifier is this cell's, and the frames are these values'.
      guard let known = found[ObjectIdentifier(cell)] else { return false }
      return known.cell === cell && known.own === values.own && known.base === values.base
    }
  }

  func insert(_ cell: DerivedCell, in values: EnvironmentValues) {
    let replaced = found.withLock { found in
      found.updateValue((cell, values.own, values.base), forKey: ObjectIdentifier(cell))
    }
    withExtendedLifetime(replaced) {}
  }
}
