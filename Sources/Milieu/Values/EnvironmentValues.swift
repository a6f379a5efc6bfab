import Synchronization

/// A collection of values carried down a tree of ``EnvironmentNode``s.
///
/// `EnvironmentValues` is a `Sendable` value type with copy-on-write storage. Extend it with a
/// computed property per value, backed either by an ``Entry`` or by an ``EnvironmentKey``:
///
/// ```swift
/// extension EnvironmentValues {
///   static let retries = Entry(3)
///   var retries: Int {
///     get { self[Self.retries] }
///     set { self[Self.retries] = newValue }
///   }
/// }
///
/// var values = EnvironmentValues()
/// values.retries = 5
/// print(values.retries)  // 5
/// ```
///
/// A value nobody set reads as its key's default. Nodes hold the values they override, and
/// ``EnvironmentNode/values`` resolves the values a node sees.
///
/// Nodes and wrappers read values from any thread. In a module whose code defaults to the main
/// actor (`.defaultIsolation(MainActor.self)`), declare entries and accessors in a
/// `nonisolated extension EnvironmentValues`, and mark `nonisolated` the types of the values
/// you store: otherwise `@Environment` fails with "type 'KeyPath<EnvironmentValues, Int>' does
/// not conform to the 'Sendable' protocol", and a ``Derived`` build with "main actor-isolated
/// property 'retries' can not be referenced from a Sendable closure".
///
/// ```swift
/// nonisolated extension EnvironmentValues {
///   static let retries = Entry(3)
///   var retries: Int {
///     get { self[Self.retries] }
///     set { self[Self.retries] = newValue }
///   }
/// }
/// ```
///
/// SwiftUI has an `EnvironmentValues` too. In a file that imports SwiftUI and Milieu, the
/// compiler reports "'EnvironmentValues' is ambiguous for type lookup in this context": write
/// `extension Milieu.EnvironmentValues { … }`. Inside it, `Entry`, `Derived` and `Self` need no
/// prefix.
public struct EnvironmentValues: Sendable {
  /// The values written to these values.
  @usableFromInline var top: SlotMap
  /// What these values inherit, read through when `top` has none: the values a node sees. One
  /// object, so that copying a node's values retains one reference, and values read from one
  /// node retain only what that node made, never what a shared parent made.
  @usableFromInline var inherited: EnvironmentSnapshot?
  /// Set only while Milieu records which keys a key path reads.
  @usableFromInline var recorder: AccessRecorder?

  /// Creates values in which every key reads as its default.
  ///
  /// ```swift
  /// let values = EnvironmentValues()
  /// print(values.retries)  // the entry's default
  /// ```
  public init() {
    top = .empty
  }

  init(top: SlotMap = .empty, inherited: EnvironmentSnapshot?) {
    self.top = top
    self.inherited = inherited
  }

  /// Reads or writes the value of an ``Entry``.
  ///
  /// Use it in the accessor of an entry; the second parameter captures the accessor's name for
  /// diagnostics, so leave it out:
  ///
  /// ```swift
  /// var retries: Int {
  ///   get { self[Self.retries] }
  ///   set { self[Self.retries] = newValue }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - entry: The entry that identifies the value.
  ///   - accessor: The name diagnostics show for the value; defaults to the enclosing property.
  @inlinable
  public subscript<Value: Sendable>(
    entry: Entry<Value>, accessor accessor: StaticString = #function
  ) -> Value {
    get {
      let key = ObjectIdentifier(entry)
      if let recorder { recorder.recordRead(of: key, name: .accessor(accessor), in: self) }
      return value(for: key, as: Value.self) ?? entry.defaultValue
    }
    set {
      store(newValue, key: ObjectIdentifier(entry), name: .accessor(accessor), anchor: entry)
    }
  }

  /// Reads or writes the value of an ``EnvironmentKey``.
  ///
  /// ```swift
  /// extension EnvironmentValues {
  ///   var requestTimeout: Duration {
  ///     get { self[RequestTimeoutKey.self] }
  ///     set { self[RequestTimeoutKey.self] = newValue }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter key: The key type that identifies the value.
  @inlinable
  public subscript<Key: EnvironmentKey>(key: Key.Type) -> Key.Value {
    get {
      let identifier = ObjectIdentifier(key)
      if let recorder { recorder.recordRead(of: identifier, name: .key(key), in: self) }
      return value(for: identifier, as: Key.Value.self) ?? EnvironmentKeyDefaults.value(for: key)
    }
    set {
      store(newValue, key: ObjectIdentifier(key), name: .key(key), anchor: nil)
    }
  }

  /// The slot a read finds for a key.
  func slot(for key: ObjectIdentifier) -> Slot? {
    unretainedSlot(for: key)?.takeUnretainedValue()
  }

  /// The slot a read finds for a key, unretained: valid while these values are.
  @inlinable
  func unretainedSlot(for key: ObjectIdentifier) -> Unmanaged<Slot>? {
    top.unretainedSlot(for: key) ?? inherited?.unretainedSlot(for: key)
  }

  /// The value stored for a key, whose values are of type `Value`.
  ///
  /// The slot is not retained while its value is copied out: these values hold it until the
  /// read returns. That saves two atomic operations on every read.
  @inlinable
  func value<Value: Sendable>(for key: ObjectIdentifier, as _: Value.Type) -> Value? {
    guard let slot = unretainedSlot(for: key) else { return nil }
    return slot._withUnsafeGuaranteedRef { unsafeDowncast($0, to: TypedSlot<Value>.self).value }
  }

  /// What was written to these values since they were made over `original`: `top`, and, when
  /// code assigned another node's values whole, that node's own overrides too.
  ///
  /// Consuming, so that the written slots are held once and can be stamped in place.
  consuming func written(over original: EnvironmentSnapshot?) -> SlotMap {
    guard let inherited, inherited !== original else { return top }
    return inherited.top.merging(top)
  }

  /// Stores a value written to these values.
  ///
  /// Inlinable, so that the slot is made with the value's type known: no generic metadata is
  /// looked up at run time.
  @inlinable
  mutating func store<Value: Sendable>(
    _ value: Value, key: ObjectIdentifier, name: SlotName, anchor: (any AnyObject & Sendable)?
  ) {
    store(TypedSlot(value, key: key, name: name, anchor: anchor))
  }

  @usableFromInline
  mutating func store(_ slot: consuming Slot) {
    top.insert(slot)
  }
}

/// Records the keys that code reads from an ``EnvironmentValues``.
///
/// Milieu learns which key a key path such as `\.retries` stands for by running it once against
/// values that carry a recorder; `explain`, change streams and `removeOverride` rely on it. A
/// derived value's build runs with a recorder too, which is how the value learns its inputs.
@usableFromInline
final class AccessRecorder: @unchecked Sendable {
  // @unchecked: `recorded` is read and written only while `lock` is held. A spin lock, since
  // every critical section appends to an array or copies it, and a build takes it per read.
  struct Read: Sendable {
    var identifier: ObjectIdentifier
    var name: SlotName
    /// The slot the read found, or `nil` for the key's default. A derived value's cell lets go
    /// of its anchor's slot, which holds the cell; `address` still names it.
    var slot: Slot?
    /// The address of the slot the read found, 0 for the default: compared, never followed.
    var address: UInt
    /// Whether a derived value that the recorded code read made this read, rather than the
    /// recorded code itself.
    var isInput: Bool
    /// For a read of a derived value, how it is built.
    var derivation: Derivation? = nil

    init(
      identifier: ObjectIdentifier, name: SlotName, slot: Slot?, isInput: Bool,
      derivation: Derivation? = nil
    ) {
      self.identifier = identifier
      self.name = name
      self.slot = slot
      self.address = slot.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
      self.isInput = isInput
      self.derivation = derivation
    }

    /// Whether `values` finds the slot this read found.
    @inline(__always)
    func matches(_ values: EnvironmentValues) -> Bool {
      values.unretainedSlot(for: identifier).map { UInt(bitPattern: $0.toOpaque()) } ?? 0
        == address
    }
  }

  /// What the recorder records for: a derived value being built, or, for `nil`, code reading a
  /// key path.
  let building: DerivationFrame?

  private let lock = SpinLock()
  @exclusivity(unchecked) private var state = Recorded()

  private func withLock<Result>(_ body: (inout Recorded) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&state)
  }

  /// What a recorder has recorded.
  struct Recorded {
    var reads: [Read] = []
    /// The kept derived values read, directly or through others.
    var cells: [DerivedCell] = []
    /// The kept derived values that the recorded code read itself.
    var directCells: [DerivedCell] = []
    /// Whether a derived value read got its fallback, or was built from one: a value built
    /// from what was read is not kept.
    var readFallback = false
  }

  init(building: DerivationFrame? = nil) {
    self.building = building
  }

  /// Everything recorded, moved out of the recorder.
  func takeRecorded() -> Recorded {
    withLock { recorded in
      defer { recorded = Recorded() }
      return recorded
    }
  }

  @usableFromInline
  func recordRead(
    of key: ObjectIdentifier, name: SlotName, in values: EnvironmentValues,
    derivation: Derivation? = nil
  ) {
    let read = Read(
      identifier: key, name: name, slot: values.slot(for: key), isInput: false,
      derivation: derivation)
    withLock { $0.reads.append(read) }
  }

  /// Records what a derived value read while it was built, as reads of the code that read it:
  /// the inputs of `cell` (or of a value built anew), looked up in `values`.
  func recordInputs(_ inputs: [Read], cell: DerivedCell?, in values: EnvironmentValues) {
    let reads = inputs.map {
      Read(
        identifier: $0.identifier, name: $0.name, slot: values.slot(for: $0.identifier),
        isInput: true, derivation: $0.derivation)
    }
    withLock { state in
      state.reads += reads
      if let cell {
        state.cells.append(cell)
        state.directCells.append(cell)
      }
    }
  }

  /// Records that a derived value read got its fallback, or was built from one.
  func recordFallback() {
    withLock { $0.readFallback = true }
  }

  /// Records kept derived values read through another one.
  func recordCells(_ cells: [DerivedCell]) {
    guard !cells.isEmpty else { return }
    withLock { $0.cells += cells }
  }
}
