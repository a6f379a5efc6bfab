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
  /// The values written to these values, or to the node they were read from.
  @usableFromInline var own: Frame?
  /// What these values inherit, read through when `own` has none: a node's view.
  @usableFromInline var base: Frame?
  /// Set only while Milieu records which keys are read: a key path probed, a derived value
  /// built.
  @usableFromInline var recorder: ReadRecorder?

  /// Creates values in which every key reads as its default.
  ///
  /// ```swift
  /// let values = EnvironmentValues()
  /// print(values.retries)  // the entry's default
  /// ```
  public init() {}

  init(own: Frame?, base: Frame?) {
    self.own = own
    self.base = base
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
      if let recorder {
        recorder.recordRead(of: key, name: .accessor(accessor), in: self, entry: entry)
      }
      return value(for: key, as: Value.self) ?? entry.defaultValue
    }
    set {
      entry.learnName(accessor)
      store(newValue, key: ObjectIdentifier(entry), anchor: entry)
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
      store(newValue, key: ObjectIdentifier(key), anchor: nil)
    }
  }

  /// The value stored for a key, whose values are of type `Value`.
  @inlinable @inline(__always)
  func value<Value: Sendable>(for key: ObjectIdentifier, as _: Value.Type) -> Value? {
    if let value = own?.value(for: key, as: Value.self) { return value }
    return base?.value(for: key, as: Value.self)
  }

  /// The frame and position of the record a read of `key` finds.
  func record(for key: ObjectIdentifier) -> (frame: Frame, position: Frame.Position)? {
    if let own, let position = own.position(of: key) { return (own, position) }
    if let base, let position = base.position(of: key) { return (base, position) }
    return nil
  }

  /// The stamp of the write a read of `key` finds; 0 when it finds the key's default.
  func stamp(of key: ObjectIdentifier) -> UInt64 {
    own?.stamp(of: key) ?? base?.stamp(of: key) ?? 0
  }

  /// Whether a read of `key` finds a write rather than the key's default.
  func hasRecord(for key: ObjectIdentifier) -> Bool {
    own?.position(of: key) != nil || base?.position(of: key) != nil
  }

  /// The cache of the own frame that holds the write a read of `key` finds, if any.
  func cacheOfHome(of key: ObjectIdentifier) -> DerivedCache? {
    record(for: key).flatMap { $0.frame.cacheOfHome(at: $0.position) }
  }

  /// Stores a value written to these values.
  ///
  /// Inlinable, so that the value is moved into its record with its type known: no generic
  /// metadata is looked up at run time.
  @inlinable
  mutating func store<Value: Sendable>(
    _ value: Value, key: ObjectIdentifier, anchor: AnyObject?
  ) {
    Frame.write(StoredValue(value), key: key, anchor: anchor, into: &own)
  }
}
