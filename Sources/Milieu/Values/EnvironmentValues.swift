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
  /// Set only while Milieu records which keys are read: a key path probed, a derived value
  /// built.
  @usableFromInline var recorder: ReadRecorder?

  /// The reads so far, process-wide, whose value whoever read it must not keep: values built
  /// anew on every read. An ``Environment`` wrapper whose read changed the count does not keep
  /// what it read.
  @usableFromInline static let uncachedReads = Atomic<UInt>(0)

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
