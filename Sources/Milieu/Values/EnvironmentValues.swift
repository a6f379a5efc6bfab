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
public struct EnvironmentValues: Sendable {
  /// The stored values, by key identity.
  var slots: [ObjectIdentifier: Slot]
  /// Values read through when `slots` has none: set while a node's update runs, so that the
  /// update reads what the node sees and `slots` holds exactly what it wrote.
  var base: [ObjectIdentifier: Slot]?
  /// Set only while Milieu records which keys a key path reads.
  var recorder: AccessRecorder?
  /// Stamped on every value written, while a node's update runs.
  var writeOrigin: EnvironmentOrigin?

  /// Creates values in which every key reads as its default.
  ///
  /// ```swift
  /// let values = EnvironmentValues()
  /// print(values.retries)  // the entry's default
  /// ```
  public init() {
    slots = [:]
  }

  init(slots: [ObjectIdentifier: Slot], base: [ObjectIdentifier: Slot]? = nil) {
    self.slots = slots
    self.base = base
  }

  private func slot(_ identifier: ObjectIdentifier) -> Slot? {
    slots[identifier] ?? base?[identifier]
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
  public subscript<Value: Sendable>(
    entry: Entry<Value>, accessor accessor: String = #function
  ) -> Value {
    get {
      read(ObjectIdentifier(entry), name: accessor, default: entry.defaultValue)
    }
    set {
      write(newValue, for: ObjectIdentifier(entry), name: accessor, anchor: entry)
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
  public subscript<Key: EnvironmentKey>(key: Key.Type) -> Key.Value {
    get {
      let identifier = ObjectIdentifier(key)
      let slot = slot(identifier)
      if let recorder {
        recorder.recordRead(identifier, name: String(describing: key), origin: slot?.origin)
      }
      if let value = slot?.value as? Key.Value { return value }
      return EnvironmentKeyDefaults.value(for: key)
    }
    set {
      write(newValue, for: ObjectIdentifier(key), name: String(describing: key), anchor: nil)
    }
  }

  private func read<Value>(
    _ identifier: ObjectIdentifier, name: String, default defaultValue: @autoclosure () -> Value
  ) -> Value {
    guard let slot = slot(identifier) else {
      recorder?.recordRead(identifier, name: name, origin: nil)
      return defaultValue()
    }
    recorder?.recordRead(identifier, name: name, origin: slot.origin)
    if let value = slot.value as? Value { return value }
    assertionFailure("Milieu: the value stored for \(name) is not a \(Value.self)")
    return defaultValue()
  }

  private mutating func write(
    _ value: some Sendable, for identifier: ObjectIdentifier, name: String,
    anchor: (any AnyObject & Sendable)?
  ) {
    slots[identifier] = Slot(value: value, name: name, origin: writeOrigin, anchor: anchor)
  }
}

/// One stored value with what diagnostics need to know about it.
///
/// A class, so that copying values between nodes (resolving, merging) retains one object per
/// value instead of each of its fields.
final class Slot: Sendable {
  /// The value itself.
  let value: any Sendable
  /// The accessor or key name, for explanations and tree dumps.
  let name: String
  /// Where the value was set, when a node set it.
  let origin: EnvironmentOrigin?
  /// Keeps an entry's object, and so its identity, alive as long as a value is stored for it.
  let anchor: (any AnyObject & Sendable)?

  init(
    value: any Sendable, name: String, origin: EnvironmentOrigin?,
    anchor: (any AnyObject & Sendable)?
  ) {
    self.value = value
    self.name = name
    self.origin = origin
    self.anchor = anchor
  }
}

/// Records the keys that code reads from an ``EnvironmentValues``.
///
/// Milieu learns which key a key path such as `\.retries` stands for by running it once against
/// values that carry a recorder; `explain`, change streams and `removeOverride` rely on it.
final class AccessRecorder: Sendable {
  struct Read: Sendable, Equatable {
    var identifier: ObjectIdentifier
    var name: String
    var origin: EnvironmentOrigin?
  }

  private let state = Lock<[Read]>([])

  var reads: [Read] { state.withLock { $0 } }

  func recordRead(_ identifier: ObjectIdentifier, name: String, origin: EnvironmentOrigin?) {
    state.withLock { $0.append(Read(identifier: identifier, name: name, origin: origin)) }
  }
}
