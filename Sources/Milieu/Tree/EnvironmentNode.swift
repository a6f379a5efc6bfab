import Synchronization

/// A node in a tree that carries ``EnvironmentValues`` from the root down.
///
/// `EnvironmentNode()` makes a root. A child inherits every value its parent sees and may
/// override any of them for its own subtree: siblings and ancestors never see a child's
/// overrides.
///
/// ```swift
/// let app = EnvironmentNode("app")
/// app.set(\.retries, to: 3)
///
/// let request = app.child("request") { $0.retries = 5 }
/// print(request[\.retries])  // 5
/// print(app[\.retries])      // 3
/// ```
///
/// Overrides can change at any time; every descendant sees the change at its next read, and a
/// read is a consistent snapshot of the whole path to the root, never torn. A child keeps its
/// parent alive; a parent does not keep its children alive, so dropping a subtree frees it.
///
/// - Complexity: A read whose node, and the nodes above it, have not changed since the last
///   read is O(1) whatever the depth. After a write, the first read at a node resolves the path
///   up to the nearest node that is still fresh.
public final class EnvironmentNode: Sendable {
  /// The process-wide root: the current node outside any ``withCurrent(_:)`` scope.
  ///
  /// ```swift
  /// EnvironmentNode.root.set(\.retries, to: 2)
  /// ```
  public static let root = EnvironmentNode("root")

  /// The node this one inherits from, or `nil` for a root.
  public let parent: EnvironmentNode?

  private let label: Label?
  let state: Lock<State>

  /// The mutable part of a node, guarded by the node's lock.
  ///
  /// `firstChild`, `previousSibling` and `nextSibling` form an intrusive list of the node's
  /// children. They are unretained so that a parent does not keep its children alive. They stay
  /// valid because a child unlinks itself, under its parent's lock, in its `deinit`, before its
  /// storage is freed; so whoever holds the parent's lock may use the links without retaining.
  ///
  /// `resolved` caches what the node sees. A node without overrides sees exactly what its parent
  /// sees, so it shares its parent's snapshot object instead of allocating its own.
  struct State {
    var overrides: [ObjectIdentifier: Slot] = [:]
    var resolved: ResolvedValues?
    var firstChild: Unmanaged<EnvironmentNode>?
    var previousSibling: Unmanaged<EnvironmentNode>?
    var nextSibling: Unmanaged<EnvironmentNode>?
  }

  private final class Label: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
  }

  /// Creates a root node.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// ```
  ///
  /// - Parameter name: A name for diagnostics: explanations and tree dumps show it.
  public convenience init(_ name: String? = nil) {
    self.init(name: name, parent: nil)
  }

  private init(
    name: String?, parent: EnvironmentNode?, overrides: [ObjectIdentifier: Slot] = [:]
  ) {
    self.parent = parent
    self.label = name.map(Label.init)
    self.state = Lock(State(overrides: overrides))
    parent?.link(self)
  }

  deinit {
    if let parent { Self.structure.withLock { _ in parent.unlink(self) } }
    ChangeObservers.nodeWillDeinitialize(ObjectIdentifier(self))
  }

  /// The node's name, if it has one.
  public var name: String? { label?.name }

  /// Creates a child that inherits this node's values, with overrides of its own.
  ///
  /// ```swift
  /// let sheet = app.child("sheet") { values in
  ///   values.retries = 0
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: A name for diagnostics.
  ///   - fileID: The file recorded as the origin of the overrides; leave the default.
  ///   - line: The line recorded as the origin of the overrides; leave the default.
  ///   - configure: Sets the child's overrides. What it writes is overridden on the child;
  ///     what it only reads is not.
  /// - Returns: The new child. The parent does not retain it.
  public func child(
    _ name: String? = nil, fileID: String = #fileID, line: UInt = #line,
    _ configure: (inout EnvironmentValues) -> Void = { _ in }
  ) -> EnvironmentNode {
    // The overrides are written before the child exists, so nobody can see it half-made and
    // its creation invalidates no cache.
    var scratch = EnvironmentValues(
      slots: [:], base: resolved(at: EnvironmentGeneration.current).flattened)
    scratch.writeOrigin = EnvironmentOrigin(
      fileID: fileID, line: line, nodeName: name, serial: EnvironmentGeneration.nextSerial())
    configure(&scratch)
    return EnvironmentNode(name: name, parent: self, overrides: scratch.slots)
  }

  // MARK: Reading

  /// The values this node sees: its own overrides over everything its ancestors provide.
  ///
  /// The result is a consistent snapshot: a write that sets several values at once is seen
  /// whole or not at all.
  ///
  /// ```swift
  /// let values = request.values
  /// print(values.retries, values.timeout)
  /// ```
  public var values: EnvironmentValues {
    resolved(at: EnvironmentGeneration.current).values
  }

  /// Reads one value as this node sees it.
  ///
  /// ```swift
  /// let retries = request[\.retries]
  /// ```
  ///
  /// - Parameter keyPath: The value to read.
  public subscript<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) -> Value {
    values[keyPath: keyPath]
  }

  /// Resolves the node's values for a generation, refreshing stale caches on the way up.
  ///
  /// The walk holds one node's lock at a time, so it cannot deadlock with a tree dump, which
  /// takes locks from the top down. A node without overrides shares the snapshot of the node
  /// above it; a node with overrides lays them over its parent's values without copying them
  /// (see ``ResolvedValues``).
  func resolved(at generation: UInt64) -> ResolvedValues {
    if let fresh = state.withLock({ $0.freshResolved(at: generation) }) { return fresh }
    var stale: [EnvironmentNode] = [self]
    var above = ResolvedValues(generation: generation, top: [:], rest: [:])
    var cursor = parent
    while let node = cursor {
      if let fresh = node.state.withLock({ $0.freshResolved(at: generation) }) {
        above = fresh
        break
      }
      stale.append(node)
      cursor = node.parent
    }
    for node in stale.reversed() {
      above = node.state.withLock { state in
        let resolved =
          state.overrides.isEmpty
          ? above
          : ResolvedValues(generation: generation, top: state.overrides, rest: above.flattened)
        // Cache only while the generation is still the one the snapshot was read at: a write
        // that came in between may already have retired this node's cache, and must not find
        // an old snapshot put back behind it.
        if EnvironmentGeneration.current == generation,
          (state.resolved?.generation ?? 0) < generation
        {
          state.resolved = resolved
        }
        return resolved
      }
    }
    return above
  }

  // MARK: Writing

  /// Overrides one value for this node and its subtree.
  ///
  /// ```swift
  /// app.set(\.retries, to: 5)
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The value to override.
  ///   - value: The new value.
  ///   - fileID: The file recorded as the override's origin; leave the default.
  ///   - line: The line recorded as the override's origin; leave the default.
  public func set<Value: Sendable>(
    _ keyPath: WritableKeyPath<EnvironmentValues, Value>, to value: Value,
    fileID: String = #fileID, line: UInt = #line
  ) {
    update(fileID: fileID, line: line) { $0[keyPath: keyPath] = value }
  }

  /// Overrides several values at once, as one write that readers see whole or not at all.
  ///
  /// The closure starts from the values the node sees now. Every value it writes becomes an
  /// override of this node; values it only reads stay as they are. The closure runs without
  /// any lock held, so two concurrent updates that read and then write the same value can
  /// overwrite each other.
  ///
  /// ```swift
  /// node.update { values in
  ///   values.host = "db.internal"
  ///   values.port = 5432
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - fileID: The file recorded as the origin of the overrides; leave the default.
  ///   - line: The line recorded as the origin of the overrides; leave the default.
  ///   - body: Writes the overrides.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws; then nothing is written.
  @discardableResult
  public func update<Result, Failure: Error>(
    fileID: String = #fileID, line: UInt = #line,
    _ body: (inout EnvironmentValues) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let origin = EnvironmentOrigin(
      fileID: fileID, line: line, nodeName: name, serial: EnvironmentGeneration.nextSerial())
    var scratch = EnvironmentValues(
      slots: [:], base: resolved(at: EnvironmentGeneration.current).flattened)
    scratch.writeOrigin = origin
    let result = try body(&scratch)
    let written = scratch.slots
    guard !written.isEmpty else { return result }
    // What the write replaces is released after the lock, in `didWrite`: a value's deinit (an
    // alert host's resolves its awaiters) must not run under a node's lock.
    let replaced = state.withLock { state in
      let replaced = Replaced(overrides: state.overrides, resolved: state.resolved.take())
      state.overrides.merge(written) { _, new in new }
      return replaced
    }
    didWrite(replacing: replaced)
    return result
  }

  /// Removes this node's override of a value, so the node sees what its parent sees again.
  ///
  /// ```swift
  /// request.removeOverride(\.retries)
  /// ```
  ///
  /// - Parameter keyPath: The value whose override to remove.
  public func removeOverride<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    let identifiers = Set(Self.reads(of: keyPath, in: EnvironmentValues()).map(\.identifier))
    let replaced = state.withLock { state -> Replaced? in
      guard state.overrides.keys.contains(where: identifiers.contains) else { return nil }
      let replaced = Replaced(overrides: state.overrides, resolved: state.resolved.take())
      state.overrides = state.overrides.filter { !identifiers.contains($0.key) }
      return replaced
    }
    if let replaced { didWrite(replacing: replaced) }
  }

  /// What a write took out of a node, kept until no lock is held.
  private struct Replaced {
    var overrides: [ObjectIdentifier: Slot]
    var resolved: ResolvedValues?
  }

  /// Makes a write visible: every cache goes stale, and the snapshots cached below this node are
  /// dropped now, so that a replaced value is freed without waiting for each descendant's next
  /// read. Old values are released here, with no lock held.
  private func didWrite(replacing replaced: Replaced) {
    EnvironmentGeneration.advance()
    let retired = retireDescendantSnapshots()
    ChangeObservers.notify()
    withExtendedLifetime((replaced, retired)) {}
  }

  /// Takes the cached snapshots out of every descendant.
  ///
  /// The walk is iterative, so a 10,000-deep chain does not exhaust a thread's stack, and takes
  /// one node's lock at a time. It holds ``structure`` throughout, which a node's `deinit` also
  /// takes before unlinking itself: so no node the walk can reach is freed while it runs, even
  /// one whose last reference went away a moment ago.
  private func retireDescendantSnapshots() -> [ResolvedValues] {
    Self.structure.withLock { _ in
      var retired: [ResolvedValues] = []
      var pending: [Unmanaged<EnvironmentNode>] = []
      if let first = state.withLock({ $0.firstChild }) { pending.append(first) }
      while let next = pending.popLast() {
        next._withUnsafeGuaranteedRef { node in
          let (snapshot, child, sibling) = node.state.withLock { state in
            (state.resolved.take(), state.firstChild, state.nextSibling)
          }
          if let snapshot { retired.append(snapshot) }
          if let sibling { pending.append(sibling) }
          if let child { pending.append(child) }
        }
      }
      return retired
    }
  }

  /// Serializes walks over the tree's child links with the unlinking of nodes being freed.
  static let structure = Lock(())

  /// The keys, with their current origins, that a key path reads.
  static func reads<Value>(
    of keyPath: KeyPath<EnvironmentValues, Value>, in values: EnvironmentValues
  ) -> [AccessRecorder.Read] {
    var probe = values
    let recorder = AccessRecorder()
    probe.recorder = recorder
    _ = probe[keyPath: keyPath]
    return recorder.reads
  }

  // MARK: Children

  private func link(_ child: EnvironmentNode) {
    let reference = Unmanaged.passUnretained(child)
    state.withLock { state in
      let first = state.firstChild
      child.state.withLock { $0.nextSibling = first }
      first?._withUnsafeGuaranteedRef { sibling in
        sibling.state.withLock { $0.previousSibling = reference }
      }
      state.firstChild = reference
    }
  }

  private func unlink(_ child: EnvironmentNode) {
    state.withLock { state in
      let (previous, next) = child.state.withLock { ($0.previousSibling, $0.nextSibling) }
      if let previous {
        previous._withUnsafeGuaranteedRef { $0.state.withLock { $0.nextSibling = next } }
      } else {
        state.firstChild = next
      }
      next?._withUnsafeGuaranteedRef { $0.state.withLock { $0.previousSibling = previous } }
    }
  }

  /// The name diagnostics show for a node.
  static func displayName(_ name: String?) -> String {
    name.map { "node \"\($0)\"" } ?? "an unnamed node"
  }
}

extension EnvironmentNode.State {
  func freshResolved(at generation: UInt64) -> ResolvedValues? {
    guard let resolved, resolved.generation >= generation else { return nil }
    return resolved
  }
}

/// The values a node sees, resolved at a generation: its overrides (`top`) laid over everything
/// its ancestors provide (`rest`, flattened).
///
/// A node without overrides shares the snapshot of the node above it. A node with overrides
/// does not copy its parent's values to resolve: reads look in `top`, then in `rest`. The
/// flattened dictionary is built only when a child with overrides of its own needs it, and is
/// then kept.
final class ResolvedValues: Sendable {
  /// The generation loaded before the data was read: the snapshot is at least this fresh.
  let generation: UInt64
  let top: [ObjectIdentifier: Slot]
  let rest: [ObjectIdentifier: Slot]
  private let flat = Lock<[ObjectIdentifier: Slot]?>(nil)

  init(generation: UInt64, top: [ObjectIdentifier: Slot], rest: [ObjectIdentifier: Slot]) {
    self.generation = generation
    self.top = top
    self.rest = rest
  }

  /// The values, ready to read.
  var values: EnvironmentValues {
    top.isEmpty ? EnvironmentValues(slots: rest) : EnvironmentValues(slots: top, base: rest)
  }

  /// The values as one dictionary.
  var flattened: [ObjectIdentifier: Slot] {
    if top.isEmpty { return rest }
    if rest.isEmpty { return top }
    if let flat = flat.withLock({ $0 }) { return flat }
    let merged = rest.merging(top) { _, own in own }
    flat.withLock { $0 = merged }
    return merged
  }
}
