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
/// The packages's other modules use it too, so every lock in Milieu is checked the same way.
package struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
  private let mutex: Mutex<Value>
  private let fence = Atomic<UInt8>(0)

  /// Creates a lock around an initial value.
  package init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// Never call user code, or anything that can block on another lock of a lower layer, from
  /// `body`.
  package borrowing func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
      _ = fence.load(ordering: .acquiring)
      defer { fence.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}
