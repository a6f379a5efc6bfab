import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Milieu's spin lock: a lock and a version in one atomic word, for critical sections of a few
/// loads and stores on hot paths.
///
/// The rule for when to use it: a node's state, a wrapper's cache, a table of derived values,
/// where the section is short and taken on every read. Anything that may hold the lock longer,
/// or whose waiters should sleep, takes ``Lock``. Under either, run no code a caller passed in,
/// and release nothing that might hold a value; debug builds check both (``LockAudit``).
///
/// The low bit says whether the lock is held; the bits above are the version, which counts the
/// writes that have reached a node, below the node's depth in the top bits (see ``word``). A
/// write bumps the version as it releases the lock, so a reader that loads a version, reads
/// through the node, and finds the same version afterwards saw no write in between; an
/// ``Environment`` wrapper keeps its cached value exactly as long as the version of its node
/// stays the one it was read at. Sharing one word keeps a childless node within its memory
/// budget, and a reader that checks the version loads a line it was about to lock anyway. Other
/// users ignore the version and the depth.
///
/// Acquiring is one compare-and-exchange; a waiter spins on a plain load, then yields its thread
/// once it has spun for a while. The thread sanitizer sees the lock, because it is made of atomics
/// compiled into the caller.
///
/// ```swift
/// let lock = VersionedLock()
/// lock.lock()
/// defer { lock.unlock() }
/// ```
@usableFromInline
struct VersionedLock: ~Copyable, Sendable {
  /// Bit 0: held. Bits 1 and up: the version, which starts with the node's depth in its top
  /// 24 bits, so that a childless node needs no word more; a write adds 1 below them, so the
  /// version only grows, and the depth reads true for 2³⁹ writes to one node.
  @usableFromInline let word: Atomic<UInt64>

  /// The depths the word can tell apart, 16,777,215; deeper nodes read as this deep.
  static let maximumDepth: UInt32 = (1 << 24) - 1

  @usableFromInline
  init(depth: UInt32 = 0) {
    word = Atomic(2 | UInt64(min(depth, Self.maximumDepth)) << 40)
  }

  /// The depth of the node, as given when the lock was made.
  var depth: UInt32 { UInt32(truncatingIfNeeded: word.load(ordering: .relaxed) >> 40) }

  /// The version now, loaded with acquiring ordering: whatever the write that set it stored
  /// before releasing the lock is visible after this load.
  @inlinable var version: UInt64 { word.load(ordering: .acquiring) >> 1 }

  /// Whether some thread holds the lock: for assertions.
  var isHeld: Bool { word.load(ordering: .relaxed) & 1 == 1 }

  /// Takes the lock; returns the version, which no write can change until ``unlock(bumping:)``.
  @inlinable @inline(__always) @discardableResult
  borrowing func lock() -> UInt64 {
    let observed = word.load(ordering: .relaxed)
    if observed & 1 == 0,
      word.compareExchange(
        expected: observed, desired: observed | 1, successOrdering: .acquiring,
        failureOrdering: .relaxed
      ).exchanged
    {
      LockAudit.acquired()
      return observed >> 1
    }
    return lockContended()
  }

  /// Waits for the lock: spins on a plain load, then yields the thread between attempts.
  @usableFromInline @inline(never)
  borrowing func lockContended() -> UInt64 {
    var observed = word.load(ordering: .relaxed)
    var attempts = 0
    while true {
      if observed & 1 == 0 {
        let (exchanged, original) = word.compareExchange(
          expected: observed, desired: observed | 1, successOrdering: .acquiring,
          failureOrdering: .relaxed)
        if exchanged {
          LockAudit.acquired()
          return observed >> 1
        }
        observed = original
        continue
      }
      attempts += 1
      if attempts > 64 { sched_yield() }
      observed = word.load(ordering: .relaxed)
    }
  }

  /// Releases the lock, bumping the version if a write reached the node meanwhile.
  @inlinable @inline(__always)
  borrowing func unlock(bumping: Bool = false) {
    LockAudit.released()
    // Only the holder changes the word while the lock is held.
    let held = word.load(ordering: .relaxed)
    word.store((held & ~1) &+ (bumping ? 2 : 0), ordering: .releasing)
  }
}
