import Synchronization

/// Reads a value from the node that was current when the instance holding it was created.
///
/// Use it in structs, classes and actors, the way SwiftUI views use theirs:
///
/// ```swift
/// final class NoteService {
///   @Environment(\.showAlert) var showAlert
///   @Environment(\.retries) var retries
/// }
///
/// let service = request.withCurrent { NoteService() }
/// service.retries  // read live from `request`, wherever and whenever it is called
/// ```
///
/// The wrapper binds to ``EnvironmentNode/current`` once, when it is initialized, and reads from
/// that node every time: escaping closures and later calls see the same subtree, and a change to
/// the node's overrides is seen at the next read.
///
/// The wrapper keeps the last value it read, as a stored property would, until its next read
/// or its own end: a value its node stops holding is released at the wrapper's next read.
///
/// A property wrapper's storage is a `var`, so a `Sendable` class cannot hold one; use a struct
/// or an actor, or keep `let retries = Environment(\.retries)` and read `retries.wrappedValue`.
///
/// - Complexity: A read that follows no write to any node is one atomic load and one
///   uncontended lock, whatever the depth of the node, and allocates nothing; for a value of one
///   word of plain bits (`Int`, `Bool`, `Double`), three atomic loads and no lock, so threads
///   reading one wrapper at once do not wait for each other.
@propertyWrapper
public struct Environment<Value: Sendable>: Sendable {
  @usableFromInline let reader: EnvironmentReader<Value>

  /// Binds to the current node and reads the value at a key path from it.
  ///
  /// ```swift
  /// @Environment(\.retries) var retries
  /// ```
  ///
  /// Inlinable, so that the reader's type is specialized in the caller (unspecialized, making a
  /// wrapper looked up the metadata of `EnvironmentReader<Value>` every time), and so that a key
  /// path written at the call site becomes a direct call to its getter: applied through the
  /// runtime, it cost a fifth of a scope that makes a node current and reads it in a new
  /// service.
  ///
  /// - Parameter keyPath: The value to read.
  @inlinable
  public init(_ keyPath: KeyPath<EnvironmentValues, Value> & Sendable) {
    reader = EnvironmentReader(node: .current) { $0[keyPath: keyPath] }
  }

  /// The value as the bound node sees it now.
  @inlinable public var wrappedValue: Value { reader.read() }

  /// The wrapper itself, to reach the node it reads from: `$retries.node`.
  public var projectedValue: Self { self }

  /// The node this wrapper reads from.
  ///
  /// ```swift
  /// print(service.$retries.node.explain(\.retries))
  /// ```
  public var node: EnvironmentNode { reader.node }
}

/// The cache behind an ``Environment`` wrapper: the value and the generation it was read at.
///
/// The read path is inlinable so that it is specialized for `Value` in the caller: an
/// unspecialized generic read spends most of its time looking up type metadata (the Read
/// benchmark measured 390 ns per read before, against a 2 ns stored-property floor).
///
/// The cache is guarded by a ``SpinLock`` rather than a mutex: the critical section is a
/// comparison and a copy.
///
/// A value that is plain bits in one word (an `Int`, a `Bool`, a `Double`, a small enum without
/// payloads) is cached in two atomics instead, and read without the lock: the lock is a write to
/// memory every reader shares, and threads reading one wrapper at once then took turns for its
/// cache line (two threads read at 0.41× the throughput of one in the Read benchmark). A read
/// loads the generation with acquiring ordering, then the bits; a refresh, under the lock,
/// stores the bits, then the generation with releasing ordering. So bits read after a fresh
/// generation are that refresh's or a later one's, never older.
@usableFromInline
final class EnvironmentReader<Value: Sendable>: @unchecked Sendable {
  // @unchecked: `generation` and `value` are read and written only while `cacheLock` is held.
  // The same lock makes the runtime's exclusivity checks redundant; they cost more than the
  // rest of a read (the Read benchmark spent half its time in swift_beginAccess), so they are
  // off for these two properties.
  @usableFromInline let node: EnvironmentNode
  /// Reads the value out of the node's values: the wrapper's key path, applied.
  @usableFromInline let project: @Sendable (EnvironmentValues) -> Value
  @usableFromInline let cacheLock = SpinLock()
  @exclusivity(unchecked) @usableFromInline var generation: UInt64 = 0
  @exclusivity(unchecked) @usableFromInline var value: Value?
  /// The cache of a one-word value: the generation it was read at, and its bits.
  @usableFromInline let wordGeneration = Atomic<UInt64>(0)
  @usableFromInline let wordBits = Atomic<UInt64>(0)

  /// Whether values are cached in `wordGeneration` and `wordBits`; a constant once specialized.
  @inlinable static var isWord: Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  @usableFromInline
  init(node: EnvironmentNode, project: @escaping @Sendable (EnvironmentValues) -> Value) {
    self.node = node
    self.project = project
  }

  @inlinable
  func read() -> Value {
    let current = EnvironmentGeneration.current
    if Self.isWord {
      guard wordGeneration.load(ordering: .acquiring) >= current else {
        return refresh(at: current)
      }
      let bits = wordBits.load(ordering: .relaxed)
      return withUnsafeBytes(of: bits) { $0.loadUnaligned(as: Value.self) }
    }
    cacheLock.lock()
    let cached = generation >= current ? value : nil
    cacheLock.unlock()
    return cached ?? refresh(at: current)
  }

  /// Reads the value from the node and caches it with the generation loaded before the read.
  ///
  /// Inlinable, so that it too is specialized in the caller, but never inlined: the cached read
  /// that calls it stays small.
  @inlinable @inline(never)
  func refresh(at current: UInt64) -> Value {
    let fresh = project(node.values(at: current))
    cacheLock.lock()
    if Self.isWord {
      if wordGeneration.load(ordering: .relaxed) < current {
        var bits: UInt64 = 0
        withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: fresh, as: Value.self) }
        wordBits.store(bits, ordering: .relaxed)
        wordGeneration.store(current, ordering: .releasing)
      }
    } else if generation < current {
      generation = current
      value = fresh
    }
    cacheLock.unlock()
    return fresh
  }
}
