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
/// SwiftUI and Hummingbird have an `Environment` too. In a file that imports one of them and
/// Milieu, the compiler reports "'Environment' is ambiguous for type lookup in this context":
/// write `@Milieu.Environment(\.retries)`, and `@SwiftUI.Environment` for SwiftUI's.
///
/// - Complexity: A read that follows no write to its node or the node's ancestors is one atomic
///   load and one uncontended lock, whatever the depth of the node, and allocates nothing; for a
///   value of one word of plain bits (`Int`, `Bool`, `Double`), three atomic loads and no lock,
///   so threads reading one wrapper at once do not wait for each other. Writes anywhere else
///   leave the cache alone.
@propertyWrapper
public struct Environment<Value: Sendable>: Sendable {
  @usableFromInline let reader: EnvironmentReader<Value>

  /// Binds to the current node and reads the value at a key path from it.
  ///
  /// ```swift
  /// @Environment(\.retries) var retries
  /// ```
  ///
  /// The wrapper reads through the key path from any thread, so the key path must be
  /// `Sendable`, which a key path to a property isolated to an actor is not. In a module whose
  /// code defaults to the main actor (`.defaultIsolation(MainActor.self)`), an accessor declared
  /// in a plain `extension EnvironmentValues` belongs to the main actor, and this initializer
  /// fails with "type 'KeyPath<EnvironmentValues, Int>' does not conform to the 'Sendable'
  /// protocol". Declare the accessor in a `nonisolated extension EnvironmentValues`.
  ///
  /// - Parameter keyPath: The value to read.
  @inlinable
  public init(_ keyPath: KeyPath<EnvironmentValues, Value> & Sendable) {
    // The closure is handed straight to the reader's `init`: only so does the optimizer turn the
    // key path written at the call site into a direct call to its getter, rather than apply it
    // through the runtime (about 800 instructions a read). Hence no `init` in between.
    let (kind, node) = Self.readerAndNode()
    reader = kind.init(node: node) { values, _ in values[keyPath: keyPath] }
  }

  /// What every wrapper's `init` starts from, whatever its value: the reader class for the value
  /// (see ``EnvironmentReader``), and the node the wrapper binds to, which
  /// ``EnvironmentNode/nodeForWrapper()`` chooses. The one place that decides where a wrapper
  /// reads from.
  ///
  /// Inlinable, so that the reader's type is specialized in the caller.
  @inlinable
  static func readerAndNode() -> (EnvironmentReader<Value>.Type, EnvironmentNode) {
    let kind: EnvironmentReader<Value>.Type =
      EnvironmentReader<Value>.isWord
      ? WordEnvironmentReader<Value>.self : ValueEnvironmentReader<Value>.self
    return (kind, .nodeForWrapper())
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

/// The cache behind an ``Environment`` wrapper: the value and the version of the node it was
/// read at.
///
/// The read path is inlinable so that it is specialized for `Value` in the caller: an
/// unspecialized generic read spends most of its time looking up type metadata.
///
/// A reader is one of two subclasses, chosen by `Value` when the wrapper is made:
///
/// - ``WordEnvironmentReader``, for a value that is plain bits in one word (an `Int`, a `Bool`, a
///   `Double`, a small enum without payloads): cached in two atomics and read without a lock. A
///   lock is a write to memory every reader shares, and threads reading one wrapper at once would
///   take turns for its cache line.
/// - ``ValueEnvironmentReader``, for any other value: cached in an optional guarded by a
///   ``VersionedLock`` (its version unused), whose critical section is a comparison and a copy.
///
/// Two classes rather than one with both caches, because a class that stores a `Value?` looks
/// up the metadata of `Optional<Value>` in the runtime's cache each time it is freed, and a word
/// reader never uses the optional. See "How Milieu stays fresh and frees memory" for when a
/// cached value is still fresh.
@usableFromInline
class EnvironmentReader<Value: Sendable>: @unchecked Sendable {
  @usableFromInline final let node: EnvironmentNode
  /// Reads the value out of the node's values, given the node: the wrapper's key path, applied,
  /// and for an ``EnvironmentBindable`` value bound to the node.
  @usableFromInline final let project: @Sendable (EnvironmentValues, EnvironmentNode) -> Value
  /// Serializes refreshes; for a ``ValueEnvironmentReader``, guards its cache too.
  @usableFromInline final let cacheLock = VersionedLock()

  /// Whether values are cached as one word; a constant once specialized.
  @inlinable static var isWord: Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  @usableFromInline
  required init(
    node: EnvironmentNode,
    project: @escaping @Sendable (EnvironmentValues, EnvironmentNode) -> Value
  ) {
    self.node = node
    self.project = project
  }

  @inlinable
  final func read() -> Value {
    let current = node.lock.version
    if Self.isWord {
      let cache = unsafeDowncast(self, to: WordEnvironmentReader<Value>.self)
      guard cache.version.load(ordering: .acquiring) >= current else {
        return refresh(at: current)
      }
      let bits = cache.bits.load(ordering: .relaxed)
      return withUnsafeBytes(of: bits) { $0.loadUnaligned(as: Value.self) }
    }
    let cache = unsafeDowncast(self, to: ValueEnvironmentReader<Value>.self)
    cacheLock.lock()
    let cached = cache.version >= current ? cache.value : nil
    cacheLock.unlock()
    return cached ?? refresh(at: current)
  }

  /// Reads the value from the node and caches it with the node's version loaded before the read.
  ///
  /// Inlinable, so that it too is specialized in the caller, but never inlined: the cached read
  /// that calls it stays small.
  @inlinable @inline(never)
  final func refresh(at current: UInt64) -> Value {
    let uncached = EnvironmentValues.uncachedReads.load(ordering: .relaxed)
    LockAudit.assertNoneHeld("an @Environment wrapper reads its key path")
    let fresh = project(node.values, node)
    // A value built anew on every read is not kept. The count is process-wide: a read of one
    // elsewhere meanwhile costs this wrapper one more refresh, nothing else.
    guard EnvironmentValues.uncachedReads.load(ordering: .relaxed) == uncached else { return fresh }
    cacheLock.lock()
    if Self.isWord {
      let cache = unsafeDowncast(self, to: WordEnvironmentReader<Value>.self)
      if cache.version.load(ordering: .relaxed) < current {
        var bits: UInt64 = 0
        withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: fresh, as: Value.self) }
        cache.bits.store(bits, ordering: .relaxed)
        cache.version.store(current, ordering: .releasing)
      }
    } else {
      let cache = unsafeDowncast(self, to: ValueEnvironmentReader<Value>.self)
      if cache.version < current {
        cache.version = current
        cache.value = fresh
      }
    }
    cacheLock.unlock()
    return fresh
  }
}

/// The reader of a one-word value: see ``EnvironmentReader``.
///
/// A read loads the version with acquiring ordering, then the bits; a refresh, under the lock,
/// stores the bits, then the version with releasing ordering. So bits read after a fresh
/// version are that refresh's or a later one's, never older.
@usableFromInline
final class WordEnvironmentReader<Value: Sendable>: EnvironmentReader<Value>, @unchecked Sendable {
  /// The node's version the cached bits were read at; 0, which no node has, before the first
  /// read.
  @usableFromInline let version = Atomic<UInt64>(0)
  /// The cached value's bits.
  @usableFromInline let bits = Atomic<UInt64>(0)
}

/// The reader of any other value: see ``EnvironmentReader``.
@usableFromInline
final class ValueEnvironmentReader<Value: Sendable>: EnvironmentReader<Value>, @unchecked Sendable {
  // @unchecked: `version` and `value` are read and written only while `cacheLock` is held.
  // The same lock makes the runtime's exclusivity checks redundant, and they would cost more
  // than the rest of a read, so they are off for these two properties.
  @exclusivity(unchecked) @usableFromInline var version: UInt64 = 0
  @exclusivity(unchecked) @usableFromInline var value: Value?
}
