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
  /// The reader of a one-word plain value, `nil` for any other; see ``WordEnvironmentReader``.
  @usableFromInline let wordReader: WordEnvironmentReader<Value>?
  /// The reader of any other value, `nil` for a one-word plain one.
  @usableFromInline let valueReader: ValueEnvironmentReader<Value>?

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
    // through the runtime (about 800 instructions a read).
    let node = EnvironmentNode.nodeForWrapper()
    if AtomicWord<Value>.fits {
      wordReader = WordEnvironmentReader(node: node) { values, _ in values[keyPath: keyPath] }
      valueReader = nil
    } else {
      wordReader = nil
      valueReader = ValueEnvironmentReader(node: node) { values, _ in values[keyPath: keyPath] }
    }
  }

  /// A wrapper reading from `node` with `project`, through the reader its value needs.
  @inlinable @inline(__always)
  init(node: EnvironmentNode, project: @escaping EnvironmentProjection<Value>) {
    if AtomicWord<Value>.fits {
      wordReader = WordEnvironmentReader(node: node, project: project)
      valueReader = nil
    } else {
      wordReader = nil
      valueReader = ValueEnvironmentReader(node: node, project: project)
    }
  }

  /// The value as the bound node sees it now.
  @inlinable public var wrappedValue: Value {
    if AtomicWord<Value>.fits { return wordReader.unsafelyUnwrapped.read() }
    return valueReader.unsafelyUnwrapped.read()
  }

  /// The wrapper itself, to reach the node it reads from: `$retries.node`.
  public var projectedValue: Self { self }

  /// The node this wrapper reads from.
  ///
  /// ```swift
  /// print(service.$retries.node.explain(\.retries))
  /// ```
  public var node: EnvironmentNode {
    wordReader?.node ?? valueReader.unsafelyUnwrapped.node
  }
}

/// What an ``Environment`` wrapper reads its value with: the key path applied to the values of
/// the node, and for an ``EnvironmentBindable`` value, bound to the node.
@usableFromInline
typealias EnvironmentProjection<Value> = @Sendable (EnvironmentValues, EnvironmentNode) -> Value

/// Reads a value afresh for a wrapper's cache; `nil` as its second element when the value must
/// not be kept (it was built anew on every read).
///
/// Inlinable, so that the projection is specialized in the caller, but never inlined: the cached
/// read that calls it stays small. A value built anew on every read is not kept: the count is
/// process-wide, so a read of one elsewhere meanwhile costs the wrapper one more refresh, nothing
/// else.
@inlinable @inline(never)
func readAfresh<Value>(_ project: EnvironmentProjection<Value>, from node: EnvironmentNode) -> (
  value: Value, isKept: Bool
) {
  let uncached = EnvironmentValues.uncachedReads.load(ordering: .relaxed)
  LockAudit.assertNoneHeld("an @Environment wrapper reads its key path")
  let fresh = project(node.values, node)
  return (fresh, EnvironmentValues.uncachedReads.load(ordering: .relaxed) == uncached)
}

/// The cache behind an ``Environment`` wrapper of a value that is plain bits in one word (an
/// `Int`, a `Bool`, a `Double`, a small enum without payloads): the value and the version of the
/// node it was read at, in two atomics, read without a lock. A lock is a write to memory every
/// reader shares, and threads reading one wrapper at once would take turns for its cache line.
///
/// A read loads the version with acquiring ordering, then the bits; a refresh, under the lock,
/// stores the bits, then the version with releasing ordering. So bits read after a fresh
/// version are that refresh's or a later one's, never older. See "How Milieu stays fresh and
/// frees memory" for when a cached value is still fresh.
@usableFromInline
final class WordEnvironmentReader<Value: Sendable>: Sendable {
  @usableFromInline let node: EnvironmentNode
  @usableFromInline let project: EnvironmentProjection<Value>
  /// The node's version the cached bits were read at; 0, which no node has, before the first
  /// read.
  @usableFromInline let version = Atomic<UInt64>(0)
  @usableFromInline let bits = AtomicWord<Value>()
  /// Serializes the stores of refreshes; reads never take it. Its version is unused.
  @usableFromInline let refreshing = VersionedLock()

  @usableFromInline
  init(node: EnvironmentNode, project: @escaping EnvironmentProjection<Value>) {
    self.node = node
    self.project = project
  }

  @inlinable
  func read() -> Value {
    let current = node.lock.version
    guard version.load(ordering: .acquiring) >= current else { return refresh(at: current) }
    return bits.load()
  }

  /// Reads the value from the node and caches it with the node's version loaded before the read.
  @inlinable @inline(never)
  func refresh(at current: UInt64) -> Value {
    let (fresh, isKept) = readAfresh(project, from: node)
    guard isKept else { return fresh }
    refreshing.lock()
    if version.load(ordering: .relaxed) < current {
      bits.store(fresh)
      version.store(current, ordering: .releasing)
    }
    refreshing.unlock()
    return fresh
  }
}

/// The cache behind an ``Environment`` wrapper of any other value: the value and the version of
/// the node it was read at, under a lock whose critical section is a comparison and a copy.
@usableFromInline
final class ValueEnvironmentReader<Value: Sendable>: Sendable {
  @usableFromInline let node: EnvironmentNode
  @usableFromInline let project: EnvironmentProjection<Value>
  @usableFromInline let cache = FencedMutex<(version: UInt64, value: Value?)>((0, nil))

  @usableFromInline
  init(node: EnvironmentNode, project: @escaping EnvironmentProjection<Value>) {
    self.node = node
    self.project = project
  }

  @inlinable
  func read() -> Value {
    let current = node.lock.version
    let cached = cache.withLock { $0.version >= current ? $0.value : nil }
    return cached ?? refresh(at: current)
  }

  /// Reads the value from the node and caches it with the node's version loaded before the read.
  @inlinable @inline(never)
  func refresh(at current: UInt64) -> Value {
    let (fresh, isKept) = readAfresh(project, from: node)
    guard isKept else { return fresh }
    // The value it replaces is released after the lock.
    let replaced = cache.withLock { cache -> Value? in
      guard cache.version < current else { return nil }
      cache.version = current
      defer { cache.value = fresh }
      return cache.value
    }
    withExtendedLifetime(replaced) {}
    return fresh
  }
}
