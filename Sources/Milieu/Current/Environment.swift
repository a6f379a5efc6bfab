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
    let isWord = VersionedCache.isWord(Value.self)
    reader = EnvironmentReader(node: .nodeForWrapper(), isWord: isWord) { values, _ in
      StoredValue(values[keyPath: keyPath])
    }
  }

  /// A wrapper reading from `node` with `project`.
  @inlinable @inline(__always)
  init(node: EnvironmentNode, project: @escaping EnvironmentProjection) {
    reader = EnvironmentReader(node: node, isWord: VersionedCache.isWord(Value.self), project)
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

/// The reader behind an ``Environment`` wrapper: the node it reads from, how it projects the
/// value from the node's values, and the last value read, cached with the node's version then
/// (see ``VersionedCache``, and "How Milieu stays fresh and frees memory" for when a cached value
/// is still fresh).
@usableFromInline
final class EnvironmentReader: Sendable {
  @usableFromInline let node: EnvironmentNode
  @usableFromInline let project: EnvironmentProjection
  @usableFromInline let cache: VersionedCache

  /// The reads so far on this thread whose value whoever read it must not keep: values built
  /// anew on every read, whose builds run on the thread that reads them. A wrapper whose read
  /// changed the count does not keep what it read.
  static let uncachedReads = ThreadSlot()

  @usableFromInline
  init(node: EnvironmentNode, isWord: Bool, _ project: @escaping EnvironmentProjection) {
    self.node = node
    self.project = project
    self.cache = VersionedCache(isWord: isWord)
  }

  /// The value, of type `Value`, as the node sees it now: cached if no write reached the node
  /// since it was read, else read afresh.
  @inlinable @inline(__always)
  func read<Value: Sendable>(as _: Value.Type) -> Value {
    let current = node.lock.version
    return cache.value(atVersion: current, as: Value.self)
      ?? Self.refreshed(self, at: current, as: Value.self)
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
    let uncached = Self.uncachedReads.word
    LockAudit.assertNoneHeld("an @Environment wrapper reads its key path")
    let fresh = project(node.values, node)
    guard Self.uncachedReads.word == uncached else { return fresh }
    cache.store(fresh.copy(), atVersion: current)
    return fresh
  }
}
