import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A test-and-test-and-set lock for critical sections of a few loads and stores.
///
/// An uncontended acquisition is one atomic exchange and a release is one atomic store, where
/// `Mutex` on Linux also looks up the thread's identifier on both ends. A waiter spins on a
/// plain load, so waiting does not bounce the cache line between cores, and yields its thread
/// once it has spun for a while, so a holder that was preempted gets to run. The thread
/// sanitizer sees the lock, because it is made of atomics compiled into the caller.
///
/// Use ``Lock`` instead wherever a critical section may be long or may wait: a spinning waiter
/// burns its core.
///
/// ```swift
/// let lock = SpinLock()
/// lock.lock()
/// defer { lock.unlock() }
/// ```
@usableFromInline
struct SpinLock: ~Copyable, Sendable {
  @usableFromInline let isLocked = Atomic<Bool>(false)

  @usableFromInline
  init() {}

  @inlinable @inline(__always)
  borrowing func lock() {
    if isLocked.exchange(true, ordering: .acquiring) { lockContended() }
  }

  @inlinable @inline(__always)
  borrowing func unlock() {
    isLocked.store(false, ordering: .releasing)
  }

  /// Waits for the lock: spins on a plain load, then yields the thread between attempts.
  @usableFromInline @inline(never)
  borrowing func lockContended() {
    var attempts = 0
    repeat {
      while isLocked.load(ordering: .relaxed) {
        attempts += 1
        if attempts > 64 { sched_yield() }
      }
    } while isLocked.exchange(true, ordering: .acquiring)
  }
}
