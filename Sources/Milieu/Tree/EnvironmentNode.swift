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
/// - Complexity: A read whose node has seen no write since its last read is O(1) at any depth
///   and allocates nothing. A write visits the written node's subtree once and nothing else, so
///   readers elsewhere keep their caches. The first read after a write re-resolves from the
///   nearest node above that overrides something, not from the root.
public final class EnvironmentNode: @unchecked Sendable {
  // @unchecked: `parentReference` and `label` are `let`s; the sibling links and `state` are
  // guarded by locks, as their comments say; see "How Milieu stays fresh and frees memory".

  /// The process-wide root: the current node outside any ``withCurrent(_:)`` scope.
  ///
  /// ```swift
  /// EnvironmentNode.root.set(\.retries, to: 2)
  /// ```
  public static let root = EnvironmentNode("root")

  /// The node this one inherits from, or `nil` for a root.
  public var parent: EnvironmentNode? { parentReference?.takeUnretainedValue() }

  /// The parent, retained when this node is made and released by hand when it is freed (see
  /// `releaseAncestors(startingAt:)`), so that freeing a long chain does not recurse.
  let parentReference: Unmanaged<EnvironmentNode>?

  private let label: Label?

  /// How many ancestors the node has: 0 for a root; kept in the lock's word.
  var depth: UInt32 { lock.depth }

  /// The node's neighbours among its parent's children, guarded by the *parent's* lock; see
  /// `link(_:cache:ifVersionIs:)`.
  @exclusivity(unchecked) nonisolated(unsafe) var previousSibling: Unmanaged<EnvironmentNode>?
  @exclusivity(unchecked) nonisolated(unsafe) var nextSibling: Unmanaged<EnvironmentNode>?

  /// Guards `state`; its version counts the writes that have reached the node.
  @usableFromInline let lock: VersionedLock

  /// The node's mutable state, accessed only while `lock` is held, which also makes the
  /// runtime's exclusivity checks redundant.
  @exclusivity(unchecked) nonisolated(unsafe) var state: State

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
    self.init(name: name, parent: nil, overrides: .empty, depth: 0)
  }

  private init(
    name: String?, parent: EnvironmentNode?, overrides: consuming SlotMap, depth: UInt32
  ) {
    self.parentReference = parent.map { .passRetained($0) }
    self.label = name.map(Label.init)
    self.lock = VersionedLock(depth: depth)
    self.state = State(overrides: overrides)
  }

  deinit {
    if let parentReference { parentReference._withUnsafeGuaranteedRef { $0.unlink(self) } }
    ChangeObservers.nodeWillDeinitialize(ObjectIdentifier(self))
    Self.releaseAncestors(startingAt: parentReference)
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
    // The overrides are written before the child is in the tree, so nobody can see it half-made
    // and making it stales no cache. It starts resolved over what this node sees, unless a
    // write reached this node while the closure ran.
    let version = lock.version
    let above = snapshot()
    var scratch = EnvironmentValues(inherited: above)
    configure(&scratch)
    var overrides = (consume scratch).written(over: above)
    if !overrides.isEmpty {
      overrides.stamp(
        EnvironmentOrigin(fileID: fileID, line: line, nodeName: name, serial: 0),
        depth: depth + 1)
    }
    if depth == VersionedLock.maximumDepth { reportDepthLimit(fileID: fileID, line: line) }
    let child = EnvironmentNode(name: name, parent: self, overrides: overrides, depth: depth + 1)
    link(child, cache: above, ifVersionIs: version)
    return child
  }

  /// Whether a node deeper than ``VersionedLock/maximumDepth`` was made, and reported.
  private static let reportedDepthLimit = Atomic<Bool>(false)

  /// Reports, once per process, a node deeper than the depths Milieu tells apart.
  private func reportDepthLimit(fileID: String, line: UInt) {
    guard !Self.reportedDepthLimit.exchange(true, ordering: .relaxed) else { return }
    self[\.issueReporter].report(
      EnvironmentIssue(
        "a node \(VersionedLock.maximumDepth + 1) levels deep was made: nodes this deep all "
          + "count as \(VersionedLock.maximumDepth) deep. Every value still reads right, but a "
          + "derived value built from values set below this depth may be built more often and "
          + "kept longer than its node. Fix: make the tree shallower, for example by hanging "
          + "repeated children off one parent instead of each off the last.",
        at: CallSite(fileID: fileID, filePath: fileID, line: line, column: 0)))
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
    EnvironmentValues(inherited: snapshot())
  }

  /// Reads one value as this node sees it.
  ///
  /// ```swift
  /// let retries = request[\.retries]
  /// ```
  ///
  /// - Parameter keyPath: The value to read.
  @inlinable
  public subscript<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) -> Value {
    values[keyPath: keyPath]
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
  @inlinable
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
    let seen = snapshot()
    var scratch = EnvironmentValues(inherited: seen)
    let result = try body(&scratch)
    var written = (consume scratch).written(over: seen)
    guard !written.isEmpty else { return result }
    write { overrides, serial in
      written.stamp(
        EnvironmentOrigin(fileID: fileID, line: line, nodeName: name, serial: serial),
        depth: depth)
      overrides = overrides.merging(written)
      return true
    }
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
    let identifiers = Set(
      Self.record(keyPath, in: values).reads.filter { !$0.isInput }.map(\.identifier))
    write { overrides, _ in
      guard overrides.slots.contains(where: { identifiers.contains($0.key) }) else {
        return false
      }
      overrides = overrides.removing(identifiers)
      return true
    }
  }

  /// Reads a key path from `values` and records what it read: the keys, with the slots they
  /// were found in, and what the layers above attached (the kept derived values it read).
  static func record<Value>(
    _ keyPath: KeyPath<EnvironmentValues, Value>, in values: EnvironmentValues
  ) -> (value: Value, reads: [ReadRecorder.Read], attachments: [any AnyObject & Sendable]) {
    var probe = values
    let recorder = ReadRecorder()
    probe.recorder = recorder
    let value = probe[keyPath: keyPath]
    return (value, recorder.takeReads(), recorder.takeAttachments())
  }

  /// The name diagnostics show for a node.
  static func displayName(_ name: String?) -> String {
    name.map { "node \"\($0)\"" } ?? "an unnamed node"
  }
}
