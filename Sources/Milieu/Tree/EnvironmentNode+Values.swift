import Synchronization

extension EnvironmentNode {
  /// Creates a root node.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// ```
  ///
  /// - Parameter name: A name for diagnostics: explanations and tree dumps show it.
  public convenience init(_ name: String? = nil) {
    self.init(name: name, parent: nil, own: nil, depth: 0)
  }

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
    // and making it stales no cache. It starts resolved against what this node's children see,
    // unless a write reached this node while the closure ran.
    let version = lock.version
    // Held, to tell what the closure wrote.
    let view = viewForChildren()
    let site = WriteSite(fileID: fileID, line: line)
    var scratch = EnvironmentValues(own: Frame.scratch(site: site), base: view)
    configure(&scratch)
    let own = Self.adopt(&scratch, over: view, site: site, depth: depth + 1)
    if depth == VersionedLock.maximumDepth { reportDepthLimit(fileID: fileID, line: line) }
    let cache = own.map { $0.cache ?? $0.attachCache(DerivedCache()) }
    let child = EnvironmentNode(name: name, parent: self, own: consume own, depth: depth + 1)
    cache?.bind(to: child)
    // A write reached this node while the closure ran: what it kept may be built from what the
    // write replaced.
    if !link(child, resolved: view, ifVersionIs: version) { cache?.evictAll() }
    return child
  }

  /// The own frame of a new node named `nodeName` at `depth` whose closure wrote `values`,
  /// starting from its parent's `view`: the scratch frame's records, or, when the closure
  /// assigned other values whole, every value they hold that the view does not; frozen.
  private static func adopt(
    _ values: inout EnvironmentValues, over view: Frame, site: WriteSite, depth: UInt32
  ) -> Frame? {
    var own: Frame?
    var scratch = values.own.take()
    if values.base === view, scratch?.isScratch == true, scratch?.isUnique() == true,
      let written = scratch.take()
    {
      own = written.settled()
    } else {
      values.own = scratch.take()
      let seen = EnvironmentValues(own: nil, base: view.isNothing ? nil : view)
      let written = Frame.written(in: values, over: seen)
      own = written.isEmpty ? nil : Frame.built(from: written, site: site)
      if var scratch = values.own.take() { scratch.recycle() }
    }
    own?.freeze(depth: depth)
    return own
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
    while true {
      if let values = withLockedState({ state, _ in state.values }) { return values }
      resolve()
    }
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
    write(at: WriteSite(fileID: fileID, line: line)) { values in
      values[keyPath: keyPath] = value
      return true
    }
  }

  /// Overrides several values at once, as one write that readers see whole or not at all.
  ///
  /// The closure starts from the values the node sees now. Every value it writes becomes an
  /// override of this node; values it only reads stay as they are. The closure runs without
  /// any lock held, so two concurrent updates that read and then write the same value can
  /// overwrite each other. Assigning whole values (`values = other.values`) writes every value
  /// they hold that the node does not already see, and leaves the node's other overrides:
  /// remove one with ``removeOverride(_:)``.
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
    var outcome: Swift.Result<Result, Failure>?
    write(at: WriteSite(fileID: fileID, line: line)) { values in
      do throws(Failure) {
        outcome = .success(try body(&values))
        return true
      } catch {
        outcome = .failure(error)
        return false
      }
    }
    guard let outcome else { preconditionFailure("a write runs its body once") }
    return try outcome.get()
  }

  /// Runs `body` on the node's values and writes what it wrote at `site`, unless it returns
  /// false.
  ///
  /// The body writes in place into a copy of the node's frame, its records taking the site as
  /// they are made, with a block of stamps of its own that tells it apart, and the node's cache,
  /// so that a value it reads is kept where the node's readers look, while no write reaches the
  /// node before the copy is installed. The copy is installed as it is if nobody else holds it
  /// and nothing reached the node meanwhile; else what the body wrote is laid over the node's
  /// values as they are now.
  @usableFromInline
  func write(at site: WriteSite, _ body: (inout EnvironmentValues) -> Bool) {
    let start = writableValues()
    let seen = start.values
    let writable = Frame.writable(from: seen.own, site: site)
    let cache = writable.attachCache(seen.own?.cache ?? DerivedCache(node: self))
    writable.generation = cache.generation
    let block = writable.stampBlock
    var values = EnvironmentValues(own: consume writable, base: seen.base)
    guard body(&values) else { return }
    var fast: Frame?
    if values.base === seen.base, values.own?.stampBlock == block, var own = values.own.take() {
      guard own.isWritten else { return }
      if own.isUnique() {
        own.freeze(depth: depth)
        fast = own
      }
      values.own = own
    }
    var written: [Frame.Source]?
    write(from: start) { own, _ in
      if let fast, own === seen.own { return fast }
      let changes = written ?? Frame.written(in: values, over: seen)
      written = changes
      guard !changes.isEmpty else { return own }
      var frame = Frame.overlaying(changes, on: own, site: site)
      frame.freeze(depth: depth)
      return frame
    }
  }

  /// Removes this node's override of a value, so the node sees what its parent sees again.
  ///
  /// ```swift
  /// request.removeOverride(\.retries)
  /// ```
  ///
  /// - Parameter keyPath: The value whose override to remove.
  public func removeOverride<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    let keys = Set(Self.record(keyPath, in: values).reads.filter { !$0.isInput }.map(\.key))
    write { own, _ in
      guard let own, keys.contains(where: { own.position(of: $0) != nil }) else { return own }
      var kept = own.copy(capacity: 0) { !keys.contains($0) }
      guard kept.count > 0 else { return nil }
      kept.freeze(depth: depth)
      return kept
    }
  }

  /// Reads a key path from `values` and records what it read: the keys, with the stamps of the
  /// writes they found, and what the layers above attached (the kept derived values it read).
  static func record<Value>(
    _ keyPath: KeyPath<EnvironmentValues, Value>, in values: EnvironmentValues
  ) -> (value: Value, reads: [ReadRecorder.Read], attachments: [any AnyObject & Sendable]) {
    var probe = values
    let recorder = ReadRecorder()
    probe.recorder = recorder
    let value = probe[keyPath: keyPath]
    return (value, recorder.takeReads(), recorder.takeAttachments())
  }

  /// The name diagnostics show for a node: its name quoted on one line, with every control
  /// character made visible, since a name may come from a request.
  static func displayName(_ name: String?) -> String {
    name.map { "node \(DiagnosticText.quoted($0))" } ?? "an unnamed node"
  }
}
