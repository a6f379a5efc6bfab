import Synchronization

/// A mutual-exclusion lock around a value: `Synchronization.Mutex`, made visible to the thread
/// sanitizer.
///
/// On Linux, `Mutex` sleeps and wakes in the toolchain's uninstrumented code, so the thread
/// sanitizer misses the ordering it establishes between two critical sections and reports false
/// races. `Lock` adds an atomic *fence* flag that each critical section loads with acquiring
/// ordering on entry and stores with releasing ordering on exit. Those two atomics are compiled
/// into the caller, so the sanitizer sees them and learns the order; the mutex alone provides
/// the exclusion. Outside the sanitizer they cost a plain load and store.
///
/// Every module of Milieu uses it, so every lock in Milieu is checked the same way. It is public
/// only as SPI (`@_spi(MilieuInternal) import Milieu`), which Milieu's modules and tests import
/// and no client is meant to: not supported API. It must be public all the same, with `withLock`
/// inlinable, because generic code of Milieu's modules that a client's compiler specializes (an
/// `AlertHost`'s methods, say) can only inline a public lock; a `package` one stays an
/// unspecialized call that looks up type metadata on every use.
///
/// ```swift
/// final class Counter: Sendable {
///   private let count = Lock(0)
///   func increment() { count.withLock { $0 += 1 } }
/// }
/// ```
@_spi(MilieuInternal) public struct Lock<Value>: ~Copyable, Sendable {
  @usableFromInline let mutex: Mutex<Value>
  @usableFromInline let fence = Atomic<UInt8>(0)
  /// Whether debug builds count this lock among the ones no caller's code may run under.
  @usableFromInline let isAudited: Bool

  /// Creates a lock around an initial value.
  ///
  /// - Parameters:
  ///   - initialValue: The value the lock guards.
  ///   - audited: Whether debug builds check that no code a caller passed in runs under this
  ///     lock (see `LockAudit`): true for every lock of Milieu's own; a test that calls Milieu
  ///     while it holds a lock of its own passes false.
  public init(_ initialValue: consuming sending Value, audited: Bool = true) {
    mutex = Mutex(initialValue)
    isAudited = audited
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// Keep `body` short: never call code you do not control, wait, or take a lock that code
  /// holding this one's might also want.
  ///
  /// - Parameter body: Reads or changes the value.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  public borrowing func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
      _ = fence.load(ordering: .acquiring)
      if isAudited { LockAudit.acquired() }
      defer {
        if isAudited { LockAudit.released() }
        fence.store(0, ordering: .releasing)
      }
      return try body(&value)
    }
  }
}
