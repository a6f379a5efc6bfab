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
public protocol EnvironmentKey {
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
enum EnvironmentKeyDefaults {
  /// One cell per key type. The outer lock guards the table only; a cell's own lock is held while
  /// its default is computed, which gives the key the semantics of a `static let`.
  private static let cells = Lock<[ObjectIdentifier: DefaultCell]>([:])

  static func value<Key: EnvironmentKey>(for key: Key.Type) -> Key.Value {
    let identifier = ObjectIdentifier(key)
    let cell = cells.withLock { cells in
      if let cell = cells[identifier] { return cell }
      let cell = DefaultCell()
      cells[identifier] = cell
      return cell
    }
    return cell.value { Key.defaultValue }
  }
}

/// A once-initialized, type-erased default value.
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
