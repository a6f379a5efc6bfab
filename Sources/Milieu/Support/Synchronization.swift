import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Milieu's synchronization and thread primitives, and one of the three files of the core that
// hold unsafe code (the others: `Values/Frame.swift` and `Tree/EnvironmentNode.swift`).
//
// What this file guarantees to the rest of the core, which uses only its safe surface:
// - `Lock` and `VersionedLock` are the two lock types; their rules are stated on each, and debug
//   builds count what each thread holds (`LockAudit`).
// - `LazyReference` publishes an object once, with releasing ordering, and keeps it until its
//   own end; a load is acquiring.
// - `ThreadSlot` is a word per thread; an object stored there is not retained, and whoever
//   stores one restores the slot before the object can go, but for an owning slot, which
//   retains what it is given and releases it when its thread ends.
// - `uncheckedDowncast` states its precondition and checks it in debug builds.

/// A mutual-exclusion lock around a value: `Synchronization.Mutex`, made visible to the thread
/// sanitizer (see ``FencedMutex``), and counted by the debug lock audit.
///
/// Every module of Milieu uses it, so every lock in Milieu is checked the same way. It is public
/// only as SPI (`@_spi(MilieuInternal) import Milieu`), which Milieu's modules and tests import
/// and no client is meant to: not supported API. It must be public all the same, with `withLock`
/// inlinable, because generic code of Milieu's modules that a client's compiler specializes (an
/// `AlertHost`'s methods, say) can only inline a public lock.
///
/// ```swift
/// final class Counter: Sendable {
///   private let count = Lock(0)
///   func increment() { count.withLock { $0 += 1 } }
/// }
/// ```
@_spi(MilieuInternal) public struct Lock<Value>: ~Copyable, Sendable {
  @usableFromInline let guarded: FencedMutex<Value>
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
    guarded = FencedMutex(initialValue)
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
    try guarded.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
      if isAudited { LockAudit.acquired() }
      defer { if isAudited { LockAudit.released() } }
      return try body(&value)
    }
  }
}

/// `Synchronization.Mutex` with a fence the thread sanitizer sees: what ``Lock`` is made of,
/// and what Milieu's inlinable code locks with, which cannot use ``Lock`` because it is SPI.
///
/// On Linux, `Mutex` sleeps and wakes in the toolchain's uninstrumented code, so the thread
/// sanitizer misses the ordering it establishes between two critical sections and reports false
/// races. Each critical section here also loads an atomic flag with acquiring ordering on entry
/// and stores it with releasing ordering on exit. Those two atomics are compiled into the caller,
/// so the sanitizer sees them and learns the order; the mutex alone provides the exclusion.
/// Outside the sanitizer they cost a plain load and store.
@usableFromInline
struct FencedMutex<Value: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline let mutex: Mutex<Value>
  @usableFromInline let fence = Atomic<UInt8>(0)

  @usableFromInline
  init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
  }

  @inlinable
  borrowing func withLock<Result: ~Copyable, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
      _ = fence.load(ordering: .acquiring)
      defer { fence.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}

/// Milieu's spin lock: a lock and a version in one atomic word, for a node's state, whose
/// critical sections are a few loads and stores on the paths every read takes.
///
/// Anything that may hold a lock longer, or whose waiters should sleep, takes ``Lock``. Under
/// either, run no code a caller passed in, and release nothing that might hold a value; debug
/// builds check both (``LockAudit``).
///
/// The low bit says whether the lock is held; the bits above are the version, which counts the
/// writes that have reached a node, below the node's depth in the top 24 bits. A write bumps the
/// version as it releases the lock, so a reader that loads a version, reads through the node, and
/// finds the same version afterwards saw no write in between; an ``Environment`` wrapper keeps
/// its cached value exactly as long as the version of its node stays the one it was read at.
///
/// Acquiring is one compare-and-exchange; a waiter spins on a plain load, then yields its thread
/// once it has spun for a while. The thread sanitizer sees the lock, because it is made of atomics
/// compiled into the caller.
@usableFromInline
struct VersionedLock: ~Copyable, Sendable {
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

  /// Whether the version is `version`, read by the thread that holds the lock.
  func isVersion(_ version: UInt64) -> Bool { word.load(ordering: .relaxed) >> 1 == version }

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
    // The held bit is set: adding 1 clears it and bumps the version, subtracting 1 clears it.
    word.wrappingAdd(bumping ? 1 : .max, ordering: .releasing)
  }
}

/// A reference set at most once, then read with one atomic load: what
/// `Synchronization.AtomicLazyReference` does, compiled into the caller.
///
/// The word is the object's address itself, retained while stored, so the leak sanitizer
/// recognises it as a pointer.
@usableFromInline
struct LazyReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
  @usableFromInline let address = Atomic<UInt>(0)

  @usableFromInline
  init() {}

  deinit {
    address.takeReference()?.release()
  }

  /// The instance, if one was stored.
  @inlinable @inline(__always)
  func load() -> Instance? { address.loadReference(as: Instance.self) }

  /// Runs `body` with the instance, if one was stored, without retaining it: this reference
  /// holds it for as long as the reference lives.
  @inlinable @inline(__always)
  func withLoaded<Result>(_ body: (Instance?) -> Result) -> Result {
    guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) else {
      return body(nil)
    }
    return Unmanaged<Instance>.fromOpaque(pointer)._withUnsafeGuaranteedRef { body($0) }
  }

  /// Stores `instance` unless an instance is stored already; returns the one stored.
  @inlinable @discardableResult
  func storeIfNil(_ instance: Instance) -> Instance { address.storeReferenceIfNil(instance) }
}

/// A value cached with the version of what it was read from: what an ``Environment`` wrapper's
/// reader keeps.
///
/// A value that is plain bits in one word (an `Int`, a `Bool`, a `Double`, a small enum without
/// payloads) is cached in an atomic and read with no lock: a read loads the version with
/// acquiring ordering, then the bits, and a store stores the bits, then the version with
/// releasing ordering, so bits read after a fresh version are that store's or a later one's. A
/// lock is a write to memory every reader shares, and threads reading one wrapper at once would
/// take turns for its cache line. Any other value is cached under a lock whose critical section
/// is a comparison and a copy.
@usableFromInline
struct VersionedCache: ~Copyable, Sendable {
  @usableFromInline let isWord: Bool
  /// The version the cache holds the value of; 0, which no node has, before the first store.
  @usableFromInline let version = Atomic<UInt64>(0)
  /// A one-word value's bits.
  @usableFromInline let word = Atomic<UInt64>(0)
  /// Any other value.
  @usableFromInline let cached = FencedMutex<StoredValue?>(nil)

  @usableFromInline
  init(isWord: Bool) {
    self.isWord = isWord
  }

  /// Whether a value of type `Value` is cached in a word: plain bits, one word or less.
  @inlinable @inline(__always)
  static func isWord<Value>(_: Value.Type) -> Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  /// The value cached, of type `Value`, if it was cached at `current` or later.
  @inlinable @inline(__always)
  func value<Value: Sendable>(atVersion current: UInt64, as _: Value.Type) -> Value? {
    if Self.isWord(Value.self) {
      guard version.load(ordering: .acquiring) >= current else { return nil }
      return withUnsafeBytes(of: word.load(ordering: .relaxed)) { $0.loadUnaligned(as: Value.self) }
    }
    return cached.withLock { cached in
      version.load(ordering: .relaxed) >= current ? cached?.load(as: Value.self) : nil
    }
  }

  /// Caches `value`, read at `current`, unless a later one is cached; the value it replaces is
  /// released with no lock held.
  @usableFromInline
  func store(_ value: consuming StoredValue, atVersion current: UInt64) {
    var pending = Optional(value)
    let replaced = cached.withLock { cached -> StoredValue? in
      guard version.load(ordering: .relaxed) < current, let value = pending.take() else {
        return nil
      }
      var replaced: StoredValue?
      if isWord {
        word.store(UInt64(value.container.0), ordering: .relaxed)
      } else {
        replaced = cached.take()
        cached = consume value
      }
      version.store(current, ordering: .releasing)
      return replaced
    }
    _ = consume replaced
  }
}

/// A reference read with one atomic load and no reference counted, which one writer at a time
/// replaces with a newer instance that holds the one it replaces: so whoever still reads an
/// older one reads it alive, until the newest goes.
struct ChainedReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
  private let address: Atomic<UInt>

  init(_ instance: Instance) {
    address = Atomic(UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque()))
  }

  deinit {
    address.takeReference()?.release()
  }

  /// Runs `body` with the newest instance.
  func withLoaded<Result>(_ body: (Instance) -> Result) -> Result {
    let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring))
    return Unmanaged<Instance>.fromOpaque(pointer.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
  }

  /// Makes `newer`, which holds the newest instance, the newest; call it from one writer at a
  /// time.
  func replace(with newer: Instance) {
    let older = address.exchange(
      UInt(bitPattern: Unmanaged.passRetained(newer).toOpaque()), ordering: .acquiringAndReleasing)
    Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: older).unsafelyUnwrapped).release()
  }
}

extension Atomic where Value == UInt {
  /// The object whose retained address the word holds, unretained; `nil` for none. A load
  /// with acquiring ordering.
  @inlinable @inline(__always)
  func loadReference<Instance: AnyObject>(as _: Instance.Type) -> Instance? {
    UnsafeRawPointer(bitPattern: load(ordering: .acquiring)).map {
      Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue()
    }
  }

  /// Stores `instance`, retained, unless the word holds an object already; returns the one
  /// held.
  @inlinable @discardableResult
  func storeReferenceIfNil<Instance: AnyObject>(_ instance: Instance) -> Instance {
    let retained = Unmanaged.passRetained(instance)
    let (exchanged, original) = compareExchange(
      expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
      ordering: .acquiringAndReleasing)
    if exchanged { return instance }
    retained.release()
    return UnsafeRawPointer(bitPattern: original).map {
      Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue()
    } ?? instance
  }

  /// Takes the object out, with the reference the word held; `nil` for none.
  func takeReference() -> Unmanaged<AnyObject>? {
    UnsafeRawPointer(bitPattern: exchange(0, ordering: .acquiringAndReleasing)).map {
      Unmanaged<AnyObject>.fromOpaque($0)
    }
  }
}

/// A word per thread: thread-specific storage under one key.
final class ThreadSlot: Sendable {
  private let key: pthread_key_t

  /// Makes a slot; one that `owns` what it holds releases it when its thread ends.
  init(owning owns: Bool = false) {
    var key = pthread_key_t()
    if owns {
      pthread_key_create(&key) { $0.map { Unmanaged<AnyObject>.fromOpaque($0).release() } }
    } else {
      pthread_key_create(&key, nil)
    }
    self.key = key
  }

  /// This thread's word; 0 until it stores one.
  var word: Int {
    get { pthread_getspecific(key).map { Int(bitPattern: $0) } ?? 0 }
    set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
  }

  /// The object this thread stored, unretained; `nil` if none.
  func object<Object: AnyObject>(as _: Object.Type) -> Object? {
    pthread_getspecific(key).map { Unmanaged<Object>.fromOpaque($0).takeUnretainedValue() }
  }

  /// Stores an object for this thread, unretained: the caller keeps it alive, and stores what
  /// was there before again, before it lets the object go.
  func store(_ object: AnyObject?) {
    pthread_setspecific(key, object.map { Unmanaged.passUnretained($0).toOpaque() })
  }

  /// Takes out the object an owning slot holds for this thread; `nil` if none.
  func take<Object: AnyObject>(as _: Object.Type) -> Object? {
    guard let pointer = pthread_getspecific(key) else { return nil }
    pthread_setspecific(key, nil)
    return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
  }

  /// Gives an owning slot an object to hold for this thread, unless it holds one already (given
  /// back by a nested user while this one was out): then the slot keeps that one.
  func give(_ object: AnyObject) {
    guard pthread_getspecific(key) == nil else { return }
    pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
  }
}

/// An identifier of the calling thread, to tell which thread builds a value.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

/// `object` as a `Target`, which it must be: checked in debug builds, assumed in optimized ones,
/// where a class cast would cost more than the rest of a cached read.
@usableFromInline @inline(__always)
func uncheckedDowncast<Target: AnyObject>(_ object: AnyObject, to _: Target.Type) -> Target {
  assert(object is Target, "\(type(of: object)) is not a \(Target.self)")
  return unsafeDowncast(object, to: Target.self)
}

/// The value a task-local of an optional reference holds in the current task or thread: what
/// `TaskLocal.get` returns, read without its generic copy.
///
/// `TaskLocal.get` is not inlinable, so it copies the value out through its type's value
/// witnesses; the runtime function it calls hands back the address of the value, or `nil`
/// outside any scope, and loading an optional reference from there is one load and a retain.
/// The key of a task-local is the address of its `TaskLocal` object, as `get` passes it.
func taskLocalReference<Object: AnyObject>(_ local: TaskLocal<Object?>) -> Object? {
  let key = UnsafeRawPointer(Unmanaged.passUnretained(local).toOpaque())
  return taskLocalValue(forKey: key)?.load(as: Object?.self)
}

/// The address of the value a task-local holds in the current task or thread, `nil` where no
/// scope binds it: the Swift runtime's entry point behind `TaskLocal.get`.
@_silgen_name("swift_task_localValueGet")
private func taskLocalValue(forKey key: UnsafeRawPointer) -> UnsafeMutableRawPointer?

/// Lets other threads run before this one goes on.
func yieldThread() {
  sched_yield()
}

/// Writes `text` to standard error in one call.
func writeToStandardError(_ text: String) {
  _ = text.utf8CString.withUnsafeBufferPointer { buffer in
    write(2, buffer.baseAddress, buffer.count - 1)
  }
}
