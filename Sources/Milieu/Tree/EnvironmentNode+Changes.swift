import Synchronization

extension EnvironmentNode {
  /// A stream of a value as this node sees it: the current value first, then each change.
  ///
  /// A change is a write, at this node or an ancestor, to a key the key path reads, that this
  /// node can see: a write that a nearer override shadows is not a change here. The stream
  /// finishes when the node is deinitialized; it stops observing when the consumer stops
  /// iterating.
  ///
  /// ```swift
  /// for await retries in request.changes(of: \.retries) {
  ///   print("retries is now", retries)
  /// }
  /// ```
  ///
  /// The stream keeps only a weak reference to the node.
  ///
  /// - Parameters:
  ///   - keyPath: The value to observe.
  ///   - bufferingPolicy: What the stream keeps while its consumer is busy; by default every
  ///     change.
  /// - Returns: The stream.
  public func changes<Value: Sendable>(
    of keyPath: KeyPath<EnvironmentValues, Value> & Sendable,
    bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded
  ) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: bufferingPolicy)
    let observer = ChangeObserver(node: self, keyPath: keyPath, continuation: continuation)
    let identifier = ChangeObservers.add(observer, for: ObjectIdentifier(self))
    continuation.onTermination = { _ in ChangeObservers.remove(identifier) }
    observer.refresh()
    return stream
  }
}

/// Something that re-reads its node after every write it can see and reports what changed.
protocol ChangeObserving: Sendable {
  /// Re-reads the value and yields it if its source changed; finishes if the node is gone.
  func refresh()
  /// Finishes the stream: the node is gone.
  func finish()
  /// Whether the stream's node is `node` or below it, and so sees what is written there.
  func observes(below node: EnvironmentNode) -> Bool
}

/// One stream's state: the node (weakly), the key path, and what was last reported.
///
/// Reading the value runs user code (a key path, perhaps a derived value's build, which may
/// write to the observed node and so ask this stream to read again), and so does yielding it to
/// the consumer: neither happens under the lock. One thread reads at a time; a request to read
/// that comes meanwhile, from the reader's own build or from another thread's write, leaves a
/// note that the reading thread finds before it stops, and it reads again. So the stream reports
/// in order, misses no write, and never waits for itself.
final class ChangeObserver<Value: Sendable>: ChangeObserving {
  private weak let node: EnvironmentNode?
  private let keyPath: KeyPath<EnvironmentValues, Value> & Sendable
  private let continuation: AsyncStream<Value>.Continuation
  private let state = Lock(State())

  private struct State {
    /// The stamps of the writes the keys were last read from, `nil` before the first report.
    /// Every write takes a new stamp, so a key whose stamp is another has changed.
    var lastStamps: [UInt64]?
    /// Whether a thread is reading the value now.
    var isReading = false
    /// Whether a write asked for a read while one was under way.
    var isStale = false
  }

  init(
    node: EnvironmentNode, keyPath: KeyPath<EnvironmentValues, Value> & Sendable,
    continuation: AsyncStream<Value>.Continuation
  ) {
    self.node = node
    self.keyPath = keyPath
    self.continuation = continuation
  }

  func refresh() {
    let mustRead = state.withLock { state in
      if state.isReading {
        state.isStale = true
        return false
      }
      state.isReading = true
      return true
    }
    guard mustRead else { return }
    repeat {
      guard let node else {
        state.withLock { $0.isReading = false }
        return finish()
      }
      LockAudit.assertNoneHeld("a change stream reads its key path")
      let (value, reads, _) = EnvironmentNode.record(keyPath, in: node.values)
      let stamps = reads.map(\.stamp)
      let changed = state.withLock { state in
        if state.lastStamps == stamps { return false }
        state.lastStamps = stamps
        return true
      }
      if changed {
        LockAudit.assertNoneHeld("a change stream yields to its consumer")
        continuation.yield(value)
      }
    } while state.withLock { state in
      guard state.isStale else {
        state.isReading = false
        return false
      }
      state.isStale = false
      return true
    }
  }

  func finish() {
    continuation.finish()
  }

  func observes(below written: EnvironmentNode) -> Bool {
    var cursor = node
    while let current = cursor {
      if current === written { return true }
      cursor = current.parent
    }
    return false
  }
}

/// Every live change stream in the process, so that a write can tell them to re-read.
enum ChangeObservers {
  private struct Registry {
    var nextIdentifier = 0
    /// The streams of each node, by the node's identifier, which a node's deinit removes: so
    /// every identifier here is a live node's.
    var observers: [ObjectIdentifier: [Int: any ChangeObserving]] = [:]
    var nodes: [Int: ObjectIdentifier] = [:]
  }

  private static let registry = Lock(Registry())
  /// The number of live observers, read without the lock so writes and deinitializers pay
  /// nothing when no stream exists.
  private static let count = Atomic<Int>(0)

  static func add(_ observer: any ChangeObserving, for node: ObjectIdentifier) -> Int {
    registry.withLock { registry in
      registry.nextIdentifier += 1
      registry.observers[node, default: [:]][registry.nextIdentifier] = observer
      registry.nodes[registry.nextIdentifier] = node
      count.add(1, ordering: .relaxed)
      return registry.nextIdentifier
    }
  }

  static func remove(_ identifier: Int) {
    let removed = registry.withLock { registry -> (any ChangeObserving)? in
      guard let node = registry.nodes.removeValue(forKey: identifier) else { return nil }
      count.subtract(1, ordering: .relaxed)
      defer { if registry.observers[node]?.isEmpty == true { registry.observers[node] = nil } }
      return registry.observers[node]?.removeValue(forKey: identifier)
    }
    withExtendedLifetime(removed) {}
  }

  /// Lets the observers of `written` and of its descendants re-read, with no lock held: no
  /// other node can see its write. Each stream's node is found through the stream, which holds
  /// it, so no write lists its subtree.
  @inline(__always)
  static func refresh(below written: EnvironmentNode) {
    guard count.load(ordering: .relaxed) != 0 else { return }
    let observers = registry.withLock { $0.observers.values.flatMap(\.values) }
    for observer in observers where observer.observes(below: written) { observer.refresh() }
  }

  /// Finishes the streams of a node that is being deinitialized.
  ///
  /// Always inlined: every node's deinit calls it, and almost always finds no stream at all.
  @inline(__always)
  static func nodeWillDeinitialize(_ node: ObjectIdentifier) {
    if count.load(ordering: .relaxed) != 0 { finishStreams(of: node) }
  }

  private static func finishStreams(of node: ObjectIdentifier) {
    let finished = registry.withLock { registry -> [any ChangeObserving] in
      guard let matching = registry.observers.removeValue(forKey: node) else { return [] }
      for identifier in matching.keys { registry.nodes[identifier] = nil }
      count.subtract(matching.count, ordering: .relaxed)
      return Array(matching.values)
    }
    for observer in finished { observer.finish() }
  }
}
