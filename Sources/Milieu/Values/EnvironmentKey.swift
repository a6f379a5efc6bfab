import Dispatch

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
  /// Milieu computes it at most once per process, with none of its locks held, and reuses that
  /// value for every later read, the way a `static let` is initialized once: a thread that
  /// reads the key while another computes it waits for that value. Reading the same key from
  /// inside its own `defaultValue` is a programming error, which stops the program with a
  /// message naming the key, where a `static let` whose initializer reads itself deadlocks.
  static var defaultValue: Value { get }
}

/// The process-wide store of ``EnvironmentKey`` defaults: each key's default is computed once,
/// on first use, and kept.
///
/// A default is code of the key's, so it is computed with no lock of Milieu's held: the first
/// reader claims it, and readers that come while it is computed wait for it, as readers of a
/// `static let` wait for its initializer.
@usableFromInline
enum EnvironmentKeyDefaults {
  /// Each key's default, boxed, or the claim of the thread computing it.
  private static let table = Lock<[ObjectIdentifier: Known]>([:])

  private enum Known: Sendable {
    case value(AnyObject & Sendable)
    case computing(DefaultClaim)
  }

  @usableFromInline
  static func value<Key: EnvironmentKey>(for key: Key.Type) -> Key.Value {
    let identifier = ObjectIdentifier(key)
    while true {
      let (known, isMine) = table.withLock { table -> (Known, Bool) in
        if let known = table[identifier] { return (known, false) }
        let claim = DefaultClaim()
        table[identifier] = .computing(claim)
        return (.computing(claim), true)
      }
      switch known {
      case .value(let box):
        return uncheckedDowncast(box, to: DefaultValue.self).value.load(as: Key.Value.self)
      case .computing(let claim) where isMine:
        let value = Key.defaultValue
        table.withLock { $0[identifier] = .value(DefaultValue(StoredValue(value))) }
        claim.finish()
        return value
      case .computing(let claim):
        precondition(
          !claim.isOnThisThread,
          "the defaultValue of \(Key.self) reads \(Key.self): a default cannot be computed from itself"
        )
        claim.wait()
      }
    }
  }
}

/// A computed default, of the key's value type.
@usableFromInline
final class DefaultValue: Sendable {
  @usableFromInline let value: StoredValue

  @usableFromInline
  init(_ value: consuming StoredValue) {
    self.value = value
  }
}

/// A default being computed: the thread computing it, and a latch the readers that come
/// meanwhile wait on.
private final class DefaultClaim: Sendable {
  private let thread = currentThreadID()
  private let done = DispatchSemaphore(value: 0)
  private let state = Lock((waiters: 0, isFinished: false))

  var isOnThisThread: Bool { thread == currentThreadID() }

  /// Returns once the default is computed.
  func wait() {
    let mustWait = state.withLock { state in
      guard !state.isFinished else { return false }
      state.waiters += 1
      return true
    }
    if mustWait { done.wait() }
  }

  /// Wakes every reader waiting; later readers find the value in the table.
  func finish() {
    let waiters = state.withLock { state in
      state.isFinished = true
      return state.waiters
    }
    for _ in 0..<waiters { done.signal() }
  }
}
