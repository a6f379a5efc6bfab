/// A key for a value that ``EnvironmentValues`` carries, in the form SwiftUI uses.
///
/// Declare a type that conforms to `EnvironmentKey`, give it a ``defaultValue``, and expose it as
/// a computed property on ``EnvironmentValues``:
///
/// ```swift
/// private struct RequestTimeoutKey: EnvironmentKey {
///   static var defaultValue: Duration { .seconds(30) }
/// }
///
/// extension EnvironmentValues {
///   var requestTimeout: Duration {
///     get { self[RequestTimeoutKey.self] }
///     set { self[RequestTimeoutKey.self] = newValue }
///   }
/// }
/// ```
///
/// The key type itself is the identity of the value, so two keys with the same name in different
/// types or modules never collide. ``EnvironmentValues/Entry`` is the shorter form that needs no
/// key type.
///
/// Milieu reads a key's default from any thread, so a key type is never isolated to an actor: a
/// `SendableMetatype`. In a module whose code defaults to the main actor, a key type such as
/// `RequestTimeoutKey` above is nonisolated without saying so; the accessor still goes in a
/// `nonisolated extension EnvironmentValues` (see ``EnvironmentValues``).
///
/// SwiftUI has an `EnvironmentKey` too. In a file that imports SwiftUI and Milieu, the compiler
/// reports "'EnvironmentKey' is ambiguous for type lookup in this context": write
/// `struct RequestTimeoutKey: Milieu.EnvironmentKey`.
public protocol EnvironmentKey: SendableMetatype {
  /// The type of the value this key stores.
  associatedtype Value: Sendable

  /// The value read when no node on the path to the root sets this key.
  ///
  /// Milieu computes it at most once per process and reuses that value for every later read,
  /// the way a `static let` is initialized once. Reading the same key from inside its own
  /// `defaultValue` is a programming error and deadlocks, just as a `static let` whose
  /// initializer reads itself does.
  static var defaultValue: Value { get }
}

/// The process-wide store of ``EnvironmentKey`` defaults: each key's default is computed once,
/// on first use, and kept.
@usableFromInline
enum EnvironmentKeyDefaults {
  /// Computed defaults by key type, and a once-cell for each key whose default is being or has
  /// been computed. A read of a known default takes this lock once.
  private static let table = Lock<[ObjectIdentifier: Known]>([:])

  private enum Known: Sendable {
    case value(any Sendable)
    case computing(DefaultCell)
  }

  @usableFromInline
  static func value<Key: EnvironmentKey>(for key: Key.Type) -> Key.Value {
    let identifier = ObjectIdentifier(key)
    let known = table.withLock { table in
      if let known = table[identifier] { return known }
      let cell = DefaultCell()
      table[identifier] = .computing(cell)
      return .computing(cell)
    }
    switch known {
    case .value(let value):
      if let value = value as? Key.Value { return value }
      return Key.defaultValue  // unreachable: the table is keyed by the key's own type
    case .computing(let cell):
      let value = cell.value { Key.defaultValue }
      table.withLock { $0[identifier] = .value(value) }
      return value
    }
  }
}

/// A once-initialized, type-erased default value. Its lock is held while the default is
/// computed, which gives the key the semantics of a `static let`.
private final class DefaultCell: Sendable {
  private let storage = Lock<(any Sendable)?>(nil)

  func value<Value: Sendable>(computing compute: () -> Value) -> Value {
    storage.withLock { stored in
      if let value = stored as? Value { return value }
      let value = compute()
      stored = value
      return value
    }
  }
}
