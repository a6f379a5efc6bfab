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
/// - Complexity: A read that follows no write to any node is one atomic load and one
///   uncontended lock, whatever the depth of the node, and allocates nothing.
@propertyWrapper
public struct Environment<Value: Sendable>: Sendable {
  private let reader: EnvironmentReader<Value>

  /// Binds to the current node and reads the value at a key path from it.
  ///
  /// ```swift
  /// @Environment(\.retries) var retries
  /// ```
  ///
  /// - Parameter keyPath: The value to read.
  public init(_ keyPath: KeyPath<EnvironmentValues, Value> & Sendable) {
    reader = EnvironmentReader(node: .current, keyPath: keyPath)
  }

  /// The value as the bound node sees it now.
  public var wrappedValue: Value { reader.read() }

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
final class EnvironmentReader<Value: Sendable>: Sendable {
  let node: EnvironmentNode
  private let keyPath: KeyPath<EnvironmentValues, Value> & Sendable
  private let cache = Lock<(generation: UInt64, value: Value?)>((0, nil))

  init(node: EnvironmentNode, keyPath: KeyPath<EnvironmentValues, Value> & Sendable) {
    self.node = node
    self.keyPath = keyPath
  }

  func read() -> Value {
    let generation = EnvironmentGeneration.current
    if let value = cache.withLock({ $0.generation >= generation ? $0.value : nil }) {
      return value
    }
    let value = EnvironmentValues(slots: node.resolvedSlots(at: generation))[keyPath: keyPath]
    cache.withLock { cache in
      if cache.generation < generation { cache = (generation, value) }
    }
    return value
  }
}
