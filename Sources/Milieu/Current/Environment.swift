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
  /// Reads and caches the value; the same class whatever `Value` is, so that making, reading
  /// and dropping a wrapper instantiates no generic metadata at run time.
  @usableFromInline let reader: EnvironmentReader

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
    // through the runtime on every refresh.
    let isWord = EnvironmentReader.isWord(Value.self)
    reader = EnvironmentReader(node: .nodeForWrapper(), isWord: isWord) { values, _ in
      StoredValue(values[keyPath: keyPath])
    }
  }

  /// A wrapper reading from `node` with `project`.
  @inlinable @inline(__always)
  init(node: EnvironmentNode, project: @escaping EnvironmentProjection) {
    reader = EnvironmentReader(node: node, isWord: EnvironmentReader.isWord(Value.self), project)
  }

  /// The value as the bound node sees it now.
  @inlinable public var wrappedValue: Value {
    @inline(__always) get { reader.read(as: Value.self) }
  }

  /// The wrapper itself, to reach the node it reads from: `$retries.node`.
  public var projectedValue: Self { self }

  /// The node this wrapper reads from.
  ///
  /// ```swift
  /// print(service.$retries.node.explain(\.retries))
  /// ```
  public var node: EnvironmentNode { reader.node }
}

/// What an ``Environment`` wrapper reads its value with: the key path applied to the values of
/// the node, and for an ``EnvironmentBindable`` value, bound to the node.
@usableFromInline
typealias EnvironmentProjection = @Sendable (EnvironmentValues, EnvironmentNode) -> StoredValue

/// The cache behind an ``Environment`` wrapper: the last value read and the version of the node
/// it was read at.
///
/// A value that is plain bits in one word (an `Int`, a `Bool`, a `Double`, a small enum without
/// payloads) is cached in an atomic and read with no lock: a read loads the version with
/// acquiring ordering, then the bits, and a refresh stores the bits, then the version with
/// releasing ordering, so bits read after a fresh version are that refresh's or a later one's. A
/// lock is a write to memory every reader shares, and threads reading one wrapper at once would
/// take turns for its cache line. Any other value is cached under a lock whose critical section
/// is a comparison and a copy. See "How Milieu stays fresh and frees memory" for when a cached
/// value is still fresh.
@usableFromInline
final class EnvironmentReader: @unchecked Sendable {
  // @unchecked: `cached` is read and written only under `lock`; the rest is constant or atomic.
  @usableFromInline let node: EnvironmentNode
  @usableFromInline let project: EnvironmentProjection
  @usableFromInline let isWord: Bool
  /// The node's version the cache holds the value of; 0, which no node has, before the first
  /// read.
  @usableFromInline let version = Atomic<UInt64>(0)
  /// A one-word value's bits.
  @usableFromInline let word = Atomic<UInt64>(0)
  /// Guards `cached` and serializes the stores of refreshes. Its version is unused.
  @usableFromInline let lock = VersionedLock()
  /// Any other value.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var cached: StoredValue?

  @usableFromInline
  init(node: EnvironmentNode, isWord: Bool, _ project: @escaping EnvironmentProjection) {
    self.node = node
    self.isWord = isWord
    self.project = project
  }

  /// Whether a value of type `Value` is cached in a word: plain bits, one word or less.
  @inlinable @inline(__always)
  static func isWord<Value>(_: Value.Type) -> Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  /// The value, of type `Value`, as the node sees it now: cached if no write reached the node
  /// since it was read, else read afresh.
  @inlinable @inline(__always)
  func read<Value: Sendable>(as _: Value.Type) -> Value {
    let current = node.lock.version
    if Self.isWord(Value.self) {
      if version.load(ordering: .acquiring) >= current {
        return withUnsafeBytes(of: word.load(ordering: .relaxed)) {
          $0.loadUnaligned(as: Value.self)
        }
      }
    } else {
      lock.lock()
      if version.load(ordering: .relaxed) >= current, let value = cached?.load(as: Value.self) {
        lock.unlock()
        return value
      }
      lock.unlock()
    }
    return Self.refreshed(self, at: current, as: Value.self)
  }

  /// The value `reader` reads afresh: out of line, and static, so that a cached read needs no
  /// stack frame.
  @inlinable @inline(never)
  static func refreshed<Value: Sendable>(
    _ reader: EnvironmentReader, at current: UInt64, as _: Value.Type
  ) -> Value {
    reader.refresh(at: current).load(as: Value.self)
  }

  /// Reads the value from the node and caches it with the node's version loaded before the read,
  /// unless it was built anew for this read (a value new on every read is never kept).
  @usableFromInline @inline(never)
  func refresh(at current: UInt64) -> StoredValue {
    let uncached = EnvironmentValues.uncachedReads.load(ordering: .relaxed)
    LockAudit.assertNoneHeld("an @Environment wrapper reads its key path")
    let fresh = project(node.values, node)
    guard EnvironmentValues.uncachedReads.load(ordering: .relaxed) == uncached else { return fresh }
    var replaced: StoredValue?
    lock.lock()
    if version.load(ordering: .relaxed) < current {
      if isWord {
        word.store(UInt64(fresh.container.0), ordering: .relaxed)
      } else {
        replaced = cached.take()
        cached = fresh.copy()
      }
      version.store(current, ordering: .releasing)
    }
    lock.unlock()
    // The value the cache held is released with no lock held.
    _ = consume replaced
    return fresh
  }
}
