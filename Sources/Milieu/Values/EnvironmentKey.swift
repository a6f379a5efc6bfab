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
  /// reads the key while another computes it waits for that value.
  ///
  /// A default may read other keys, and their defaults, but never one whose default reads it
  /// back, directly or through others: none of them could be computed first. Reading the same
  /// key from inside its own `defaultValue` is such a cycle, and so are two defaults that read
  /// each other, on one thread or on two that compute them at once. It is a programming error,
  /// which stops the program with a message naming every key of the cycle in the order each
  /// reads the next; where a `static let` whose initializer reads itself, or two whose
  /// initializers read each other, deadlock. Compute one of the defaults without reading the
  /// other:
  ///
  /// ```swift
  /// private struct RetryDelayKey: EnvironmentKey {
  ///   // Reads RequestTimeoutKey, whose default must not read RetryDelayKey.
  ///   static var defaultValue: Duration { EnvironmentValues()[RequestTimeoutKey.self] / 10 }
  /// }
  /// ```
  static var defaultValue: Value { get }
}

/// The process-wide store of ``EnvironmentKey`` defaults: each key's default is computed once,
/// on first use, and kept.
///
/// A default is code of the key's, so it is computed with no lock of Milieu's held: the first
/// reader claims it, and readers that come while it is computed wait for it, as readers of a
/// `static let` wait for its initializer. A reader that computes a default itself, and would
/// wait for one that, through the threads waiting for each other's claims, waits for it, would
/// wait forever: it stops the program with the keys of that cycle instead.
@usableFromInline
enum EnvironmentKeyDefaults {
  /// Each key's default, boxed, or the claim of the thread computing it.
  private static let table = Lock<[ObjectIdentifier: Known]>([:])

  /// What each thread that computes a default waits for, and the innermost default it computes
  /// there. Only such a thread about to wait takes this lock; no read of a computed default does.
  private static let waits = Lock<[UInt: (claim: DefaultClaim, reader: DefaultClaim)]>([:])

  /// The innermost default this thread computes.
  private static let computing = ThreadSlot()

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
        let claim = DefaultClaim(key, in: computing.object(as: DefaultClaim.self))
        table[identifier] = .computing(claim)
        return (.computing(claim), true)
      }
      switch known {
      case .value(let box):
        return uncheckedDowncast(box, to: DefaultValue.self).value.load(as: Key.Value.self)
      case .computing(let claim) where isMine:
        computing.store(claim)
        let value = Key.defaultValue
        computing.store(claim.parent)
        table.withLock { $0[identifier] = .value(DefaultValue(StoredValue(value))) }
        claim.finish()
        return value
      case .computing(let claim):
        wait(for: claim)
      }
    }
  }

  /// Returns once `claim`'s default is computed; stops the program if this thread computes it,
  /// or waits for it through threads that wait for each other's claims.
  ///
  /// Every claim on the way must still be computing: a thread registered as waiting for a
  /// default computed since is about to wake, and is no edge. A claim is finished only once, and
  /// a thread that waits cannot finish its own meanwhile, so a chain found unfinished claim by
  /// claim is one of threads that all wait at once (as ``DerivationWaits`` finds for builds).
  private static func wait(for claim: DefaultClaim) {
    // A reader that computes no default holds no claim: no thread waits for it.
    guard let reader = computing.object(as: DefaultClaim.self) else { return claim.wait() }
    let me = currentThreadID()
    let cycle = waits.withLock { waits -> [DefaultClaim]? in
      var cycle: [DefaultClaim] = []
      var next = claim
      while !next.isFinished {
        if next.thread == me { return cycle + reader.nested(in: next) + [claim] }
        guard let waiting = waits[next.thread] else { break }
        cycle += waiting.reader.nested(in: next)
        next = waiting.claim
      }
      waits[me] = (claim, reader)
      return nil
    }
    if let cycle {
      let keys = cycle.map { String(describing: $0.key) }
      let reads = "the defaultValue of \(keys[0]) reads "
      // Not a precondition: an optimized build would stop without the message.
      fatalError(
        keys.count == 2
          ? reads + "\(keys[1]): a default cannot be computed from itself"
          : reads + keys.dropFirst().joined(separator: ", whose defaultValue reads ")
            + ": a default cannot be computed from another default that reads it; compute one "
            + "of them without reading the other")
    }
    claim.wait()
    waits.withLock { $0[me] = nil }
  }

  /// How many threads wait for the default of `key` to be computed by another that computes
  /// one: what tests wait for to finish a default only once a reader waits for it.
  static func threadsWaiting(for key: any EnvironmentKey.Type) -> Int {
    waits.withLock { $0.values.filter { $0.claim.key == key }.count }
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

/// A default being computed: its key, the thread computing it, the default that thread was
/// computing when it claimed this one, and a latch the readers that come meanwhile wait on.
private final class DefaultClaim: Sendable {
  let key: any EnvironmentKey.Type
  let thread = currentThreadID()
  let parent: DefaultClaim?
  private let done = DispatchSemaphore(value: 0)
  private let state = Lock((waiters: 0, isFinished: false))

  init(_ key: any EnvironmentKey.Type, in parent: DefaultClaim?) {
    self.key = key
    self.parent = parent
  }

  var isFinished: Bool { state.withLock { $0.isFinished } }

  /// The defaults its thread computes from `outer`, which this claim's thread computes, in to
  /// this one, in the order each reads the next.
  func nested(in outer: DefaultClaim) -> [DefaultClaim] {
    var chain = [self]
    while chain[chain.count - 1] !== outer, let parent = chain[chain.count - 1].parent {
      chain.append(parent)
    }
    return chain.reversed()
  }

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
