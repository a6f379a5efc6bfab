import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
public class EnvironmentNode: @unchecked Sendable {
  // Not final only so that `OverrideNode`, in this module, can hold a scope's value in the
  // node itself; nothing outside can subclass it, and its members are final. @unchecked: the
  // compiler checks no non-final class; every stored property here is a `let` of a `Sendable`
  // type, atomic, guarded by a lock as its comment says, or written only before the node is
  // shared (`parentReference` and `label`, see `adopt(parent:name:overrides:cache:)`).

  /// The process-wide root: the current node outside any ``withCurrent(_:)`` scope.
  ///
  /// ```swift
  /// EnvironmentNode.root.set(\.retries, to: 2)
  /// ```
  public static let root = EnvironmentNode("root")

  /// The node this one inherits from, or `nil` for a root.
  public final var parent: EnvironmentNode? { parentReference?.takeUnretainedValue() }

  /// The parent, retained when this node is made and released by hand when it is freed: see
  /// `releaseAncestors(startingAt:)`. Set before the node is shared, never after.
  @exclusivity(unchecked) nonisolated(unsafe) private final var parentReference:
    Unmanaged<EnvironmentNode>?

  @exclusivity(unchecked) nonisolated(unsafe) private final var label: Label?

  // The node's neighbours among its parent's children, guarded by the *parent's* lock: with
  // the parent's `firstChild` they form an intrusive list of the parent's children, which
  // linking and unlinking a child change under that one lock. The links are unretained so that
  // a parent does not keep its children alive. They stay valid because a child unlinks itself,
  // under its parent's lock, in its `deinit`, before its storage is freed; so whoever holds the
  // parent's lock may follow them without retaining. The lock also makes the runtime's
  // exclusivity checks redundant.
  @exclusivity(unchecked) nonisolated(unsafe) final var previousSibling: Unmanaged<EnvironmentNode>?
  @exclusivity(unchecked) nonisolated(unsafe) final var nextSibling: Unmanaged<EnvironmentNode>?

  /// Guards `guardedState`. A spin lock: every critical section on a node is a few loads and
  /// stores (see ``SpinLock``).
  final let stateLock = SpinLock()
  /// The node's mutable state; only ever accessed through `withState`, under `stateLock`,
  /// which also makes the runtime's exclusivity checks redundant.
  @exclusivity(unchecked) nonisolated(unsafe) private final var guardedState: State

  /// How many writes' walks (see `retireDescendantSnapshots`) have found this node and are not
  /// done with it yet.
  private final let pins = Atomic<UInt32>(0)

  /// The mutable part of a node, guarded by the node's lock.
  struct State {
    var overrides: SlotMap = .empty
    /// The snapshot of `cache`; see there.
    var cachedSnapshot: EnvironmentSnapshot?
    /// The first of the node's children; see ``EnvironmentNode/nextSibling``.
    var firstChild: Unmanaged<EnvironmentNode>?
    /// Whether `cachedSnapshot` is the parent's, under the node's overrides: see `cache`.
    var cacheIsOverParent = false
    /// Whether the value the node holds itself (it is an ``OverrideNode``) is one of its
    /// overrides, besides `overrides`.
    var holdsOverride = false

    init(overrides: SlotMap, cache: Cache?, holdsOverride: Bool = false) {
      self.overrides = overrides
      self.holdsOverride = holdsOverride
      self.cache = cache
    }

    /// Whether the node overrides any value.
    var hasOverrides: Bool { holdsOverride || !overrides.isEmpty }

    /// What the node sees, if it was resolved since the last write to it or an ancestor.
    ///
    /// Stored as a snapshot reference and a flag rather than as the enum: an enum of class
    /// references keeps its case in the pointer's spare bits, which the leak sanitizer does not
    /// recognise as a reference to the snapshot.
    var cache: Cache? {
      get {
        cachedSnapshot.map { cacheIsOverParent ? .overParent($0) : .snapshot($0) }
      }
      set {
        switch newValue {
        case .snapshot(let snapshot):
          (cachedSnapshot, cacheIsOverParent) = (snapshot, false)
        case .overParent(let snapshot):
          (cachedSnapshot, cacheIsOverParent) = (snapshot, true)
        case nil:
          (cachedSnapshot, cacheIsOverParent) = (nil, false)
        }
      }
    }
  }

  /// What a node sees, as it was last resolved.
  ///
  /// Neither case allocates for the node: a node without overrides shares a snapshot made
  /// above it, and a node with overrides keeps its parent's snapshot and lays its overrides
  /// over it when read. Only when a child needs a node's values as one object does the node
  /// make a snapshot of its own.
  enum Cache {
    /// The node sees exactly this snapshot.
    case snapshot(EnvironmentSnapshot)
    /// The node sees its overrides over its parent's values, which this snapshot holds.
    case overParent(EnvironmentSnapshot)
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
    name: String?, parent: EnvironmentNode?, overrides: SlotMap = .empty, cache: Cache? = nil
  ) {
    self.parentReference = parent.map { .passRetained($0) }
    self.label = name.map(Label.init)
    self.guardedState = State(overrides: overrides, cache: cache)
  }

  /// Creates a node in no tree yet, for `OverrideNode`: see `adopt(parent:name:overrides:cache:)`.
  @usableFromInline
  init(unadopted: ()) {
    self.parentReference = nil
    self.label = nil
    self.guardedState = State(overrides: .empty, cache: nil)
  }

  /// Whether no `child` call has made this node a child yet; true of a root too.
  @usableFromInline
  final var isUnadopted: Bool { parentReference == nil }

  /// Places a node made by a `child` closure's first write (an ``OverrideNode`` that only the
  /// caller references) in the tree, holding its value as an override.
  private final func adopt(
    parent: EnvironmentNode, name: String?, overrides: consuming SlotMap, cache: consuming Cache
  ) {
    parentReference = .passRetained(parent)
    label = name.map(Label.init)
    guardedState = State(overrides: overrides, cache: cache, holdsOverride: true)
  }

  deinit {
    if let parentReference {
      parentReference._withUnsafeGuaranteedRef { $0.unlink(self) }
      // A write's walk or a tree dump may have found and pinned this node just before it was
      // unlinked: the storage must outlive the visit. Rare, so waiting yields rather than blocks.
      while pins.load(ordering: .acquiring) != 0 { sched_yield() }
    }
    ChangeObservers.nodeWillDeinitialize(ObjectIdentifier(self))
    Self.releaseAncestors(startingAt: parentReference)
  }

  /// Releases a freed node's reference to its parent, and, where that frees the parent, the
  /// parent's reference to its own parent, and so on up the chain.
  ///
  /// Iterative, so that freeing the last holder of a 10,000-deep chain does not recurse 10,000
  /// frames deep. A parent that others still hold, the usual case, costs one release: the loop
  /// the compiler would generate for a stored `parent` retains and releases it once more first.
  private static func releaseAncestors(startingAt first: Unmanaged<EnvironmentNode>?) {
    var next = first
    while let reference = next {
      var node = reference.takeRetainedValue()
      guard isKnownUniquelyReferenced(&node) else { return }
      // Probably the last reference, unless a weak reference is being loaded right now. Keep
      // the grandparent alive past the node: if the node is freed, its deinit releases the
      // grandparent once, which cannot free it, and this loop goes on with the reference it
      // holds; if not, the node keeps its own.
      next = node.parentReference?.retain()
    }
  }

  /// The node's name, if it has one.
  public final var name: String? { label?.name }

  /// Runs `body` with the node's state, under the node's lock.
  ///
  /// Keep `body` short: loads, stores, and making Milieu's own objects (a snapshot, or the
  /// slot of a value an ``OverrideNode`` holds, plain data that copies without retaining
  /// anything). Run no code the caller passed in, and take no other node's lock: code that
  /// walks the tree pins the children it finds instead (see `pinChildren(of:into:)`).
  @inline(__always)
  final func withState<Result>(_ body: (inout State) -> Result) -> Result {
    stateLock.lock()
    defer { stateLock.unlock() }
    return body(&guardedState)
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
  public final func child(
    _ name: String? = nil, fileID: String = #fileID, line: UInt = #line,
    _ configure: (inout EnvironmentValues) -> Void = { _ in }
  ) -> EnvironmentNode {
    // The overrides are written before the child is in the tree, so nobody can see it
    // half-made and its creation invalidates no cache. The child starts resolved, over the
    // snapshot its overrides were written against: if that is stale by its first read, the
    // read resolves it again.
    let generation = EnvironmentGeneration.current
    let above = snapshot(at: generation)
    var scratch = EnvironmentValues(
      top: .empty, base: above.flattened, purpose: .configuringChild)
    configure(&scratch)
    // Moved out, so that the node and the written slots are held once: the node may then be
    // adopted, and the slots stamped in place.
    var held = scratch.inline.take()
    var overrides = (consume scratch).top
    var adopted: OverrideNode?
    if var node = held.take() {
      if node.isUnadopted, isKnownUniquelyReferenced(&node) {
        // The closure's first write made this node, and kept no copy of it: it becomes the
        // child.
        adopted = consume node
      } else {
        // Shared (the closure kept a copy of its values) or another node's: held as a slot,
        // stamped below as a copy, since the node keeps the slot.
        overrides.insert(node.slot)
      }
    }
    let serial = EnvironmentGeneration.serial(ofWriteAt: generation, isUpdate: false)
    if !overrides.isEmpty {
      overrides.stamp(EnvironmentOrigin(fileID: fileID, line: line, nodeName: name, serial: serial))
    }
    if let node = adopted.take() {
      node.recordSite(fileID: fileID, line: line, serial: serial)
      // Consumed, so that the node takes the references instead of retaining them again.
      node.adopt(
        parent: self, name: name, overrides: consume overrides, cache: .overParent(consume above))
      link(node)
      return node
    }
    // Consumed, so that the child takes the references instead of retaining them again.
    let cache: Cache = overrides.isEmpty ? .snapshot(consume above) : .overParent(consume above)
    let child = EnvironmentNode(
      name: name, parent: self, overrides: consume overrides, cache: consume cache)
    link(child)
    return child
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
  public final var values: EnvironmentValues {
    values(at: EnvironmentGeneration.current)
  }

  /// Reads one value as this node sees it.
  ///
  /// ```swift
  /// let retries = request[\.retries]
  /// ```
  ///
  /// Inlinable, so that a key path written at the call site is applied as a direct call to its
  /// getter rather than through the runtime.
  ///
  /// - Parameter keyPath: The value to read.
  @inlinable
  public final subscript<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) -> Value {
    values[keyPath: keyPath]
  }

  /// The values the node sees at a generation, resolving them if its cache is stale.
  ///
  /// Reading a fresh node allocates nothing, whether it has overrides or not.
  @usableFromInline
  final func values(at generation: UInt64) -> EnvironmentValues {
    if let fresh = withState({ $0.freshValues(at: generation, of: self) }) { return fresh }
    let above = parent?.snapshot(at: generation) ?? .nothing
    return withState { state in
      state.cache(over: above, at: generation, of: self)
      return state.values(over: above, of: self)
    }
  }

  /// The node's values as one snapshot object, which a child can share or lay its overrides
  /// over; resolved, and refreshed on the way up, if stale.
  ///
  /// The walk holds one node's lock at a time, as every walk of the tree does, so walks cannot
  /// deadlock with each other, and it is iterative, so a 10,000-deep chain does not exhaust a
  /// thread's stack.
  final func snapshot(at generation: UInt64) -> EnvironmentSnapshot {
    if let fresh = withState({ $0.freshSnapshot(at: generation, of: self) }) { return fresh }
    var stale: [EnvironmentNode] = [self]
    var above = EnvironmentSnapshot.nothing
    var cursor = parent
    while let node = cursor {
      if let fresh = node.withState({ $0.freshSnapshot(at: generation, of: node) }) {
        above = fresh
        break
      }
      stale.append(node)
      cursor = node.parent
    }
    for node in stale.reversed() {
      above = node.withState { state in
        state.cache(over: above, at: generation, of: node)
        return state.freshSnapshot(at: generation, of: node)
          ?? state.snapshot(over: above, at: generation, of: node)
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
  public final func set<Value: Sendable>(
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
  public final func update<Result, Failure: Error>(
    fileID: String = #fileID, line: UInt = #line,
    _ body: (inout EnvironmentValues) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    var scratch = EnvironmentValues(
      top: .empty, base: values(at: EnvironmentGeneration.current).flattened)
    let result = try body(&scratch)
    // Moved out, so that the written slots are held once and may be stamped in place. Values
    // hold a node only if `body` assigned them another node's values.
    var written = scratch.inline == nil ? (consume scratch).top : scratch.written(over: .empty)
    guard !written.isEmpty else { return result }
    let serial = EnvironmentGeneration.serial(
      ofWriteAt: EnvironmentGeneration.current, isUpdate: true)
    written.stamp(EnvironmentOrigin(fileID: fileID, line: line, nodeName: name, serial: serial))
    // What the write replaces is released after the lock, in `didWrite`: a value's deinit (an
    // alert host's resolves its awaiters) must not run under a node's lock.
    let replaced = withState { state in
      let replaced = Replaced(overrides: state.overrides, cache: state.cache.take())
      state.overrides = state.overrides(of: self).merging(written)
      state.holdsOverride = false
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
  public final func removeOverride<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    let identifiers = Set(Self.reads(of: keyPath, in: EnvironmentValues()).map(\.identifier))
    let replaced = withState { state -> Replaced? in
      let overrides = state.overrides(of: self)
      guard overrides.slots.contains(where: { identifiers.contains($0.key) }) else {
        return nil
      }
      let replaced = Replaced(overrides: state.overrides, cache: state.cache.take())
      state.overrides = overrides.removing(identifiers)
      state.holdsOverride = false
      return replaced
    }
    if let replaced { didWrite(replacing: replaced) }
  }

  /// What a write took out of a node, kept until no lock is held.
  private struct Replaced {
    var overrides: SlotMap
    var cache: Cache?
  }

  /// Makes a write visible: every cache goes stale, and the snapshots cached below this node are
  /// dropped now, so that a replaced value is freed without waiting for each descendant's next
  /// read. Old values are released here, with no lock held.
  private final func didWrite(replacing replaced: Replaced) {
    EnvironmentGeneration.advance()
    // The nodes whose streams may see the write: this one and its descendants, listed by the
    // walk only while some stream exists.
    var subtree: [ObjectIdentifier]? = ChangeObservers.isEmpty ? nil : [ObjectIdentifier(self)]
    let retired = retireDescendantSnapshots(listingInto: &subtree)
    if let subtree { ChangeObservers.refresh(observersOf: subtree) }
    withExtendedLifetime((replaced, retired)) {}
  }

  /// Takes the cached snapshots out of every descendant.
  ///
  /// The walk is iterative, so a 10,000-deep chain does not exhaust a thread's stack, and takes
  /// one node's lock at a time. It finds children under their parent's lock and *pins* each
  /// before letting go of that lock; a node's `deinit` unlinks it under the same lock, then
  /// waits for its pins to go. So no node the walk has found is freed before the walk is done
  /// with it, even one whose last reference went away a moment ago, and freeing a node costs
  /// no lock but its parent's.
  private final func retireDescendantSnapshots(
    listingInto subtree: inout [ObjectIdentifier]?
  ) -> [Cache] {
    var retired: [Cache] = []
    var pending: [Unmanaged<EnvironmentNode>] = []
    withState { Self.pinChildren(of: $0, into: &pending) }
    while let next = pending.popLast() {
      next._withUnsafeGuaranteedRef { node in
        let cache = node.withState { state in
          Self.pinChildren(of: state, into: &pending)
          return state.cache.take()
        }
        subtree?.append(ObjectIdentifier(node))
        node.unpin()  // from here on, the node may be freed
        if let cache { retired.append(cache) }
      }
    }
    return retired
  }

  /// Pins the children of the node whose state this is and appends them; its lock must be held.
  /// Each must be unpinned once the caller is done with it.
  static func pinChildren(
    of state: borrowing State, into list: inout [Unmanaged<EnvironmentNode>]
  ) {
    var cursor = state.firstChild
    while let child = cursor {
      child._withUnsafeGuaranteedRef { child in
        child.pins.add(1, ordering: .relaxed)
        cursor = child.nextSibling
      }
      list.append(child)
    }
  }

  /// Lets the node be freed again, as far as one pin goes; see `pinChildren(of:into:)`.
  final func unpin() {
    pins.subtract(1, ordering: .releasing)
  }

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

  private final func link(_ child: EnvironmentNode) {
    let reference = Unmanaged.passUnretained(child)
    withState { state in
      child.nextSibling = state.firstChild
      state.firstChild?._withUnsafeGuaranteedRef { $0.previousSibling = reference }
      state.firstChild = reference
    }
  }

  /// Takes a child out of this node's list of children.
  ///
  /// Not inlined into the child's `deinit`: there, borrowing this node's lock made the compiler
  /// retain this node around it, an atomic operation more for every node freed.
  @inline(never)
  private final func unlink(_ child: EnvironmentNode) {
    withState { state in
      let (previous, next) = (child.previousSibling, child.nextSibling)
      if let previous {
        previous._withUnsafeGuaranteedRef { $0.nextSibling = next }
      } else {
        state.firstChild = next
      }
      next?._withUnsafeGuaranteedRef { $0.previousSibling = previous }
    }
  }

  /// The name diagnostics show for a node.
  static func displayName(_ name: String?) -> String {
    name.map { "node \"\($0)\"" } ?? "an unnamed node"
  }
}

extension EnvironmentNode.State {
  // The methods that read the node's overrides take the node whose state this is: the value
  // an `OverrideNode` holds is one of them, and the state does not keep a reference to its
  // own node (a node without overrides has no room for one within its 96 bytes).

  /// The node, when the value it holds itself is one of its overrides.
  @inline(__always)
  func heldOverride(of node: EnvironmentNode) -> OverrideNode? {
    holdsOverride ? unsafeDowncast(node, to: OverrideNode.self) : nil
  }

  /// The node's overrides as one map: the value it holds itself, if any, as a slot.
  func overrides(of node: EnvironmentNode) -> SlotMap {
    guard let held = heldOverride(of: node) else { return overrides }
    var all = overrides
    all.insert(held.slot)
    return all
  }

  /// The values the node sees, if its cache is fresh at a generation.
  func freshValues(at generation: UInt64, of node: EnvironmentNode) -> EnvironmentValues? {
    guard let cachedSnapshot, cachedSnapshot.generation >= generation else { return nil }
    return cacheIsOverParent ? values(over: cachedSnapshot, of: node) : cachedSnapshot.values
  }

  func isFresh(at generation: UInt64) -> Bool {
    guard let cachedSnapshot else { return false }
    return cachedSnapshot.generation >= generation
  }

  /// The node's values as one object, if its cache is fresh at a generation; made from the
  /// node's overrides and kept, if the cache holds only its parent's snapshot.
  mutating func freshSnapshot(at generation: UInt64, of node: EnvironmentNode)
    -> EnvironmentSnapshot?
  {
    guard let cachedSnapshot, cachedSnapshot.generation >= generation else { return nil }
    guard cacheIsOverParent else { return cachedSnapshot }
    let snapshot = snapshot(over: cachedSnapshot, at: generation, of: node)
    cache = .snapshot(snapshot)
    return snapshot
  }

  /// What the node sees when its parent sees `above`.
  ///
  /// Always inlined: called out of line from a cache read, the call made the compiler retain
  /// and release the cached snapshot around it on every read.
  @inline(__always)
  func values(over above: EnvironmentSnapshot, of node: EnvironmentNode) -> EnvironmentValues {
    guard hasOverrides else { return above.values }
    return EnvironmentValues(
      top: overrides, base: above.flattened, inline: heldOverride(of: node))
  }

  /// The node's values as one snapshot, when its parent sees `above`.
  ///
  /// A node without overrides shares `above`, unless that is ``EnvironmentSnapshot/nothing``,
  /// which only a root sees: its children must find a snapshot that goes stale with the next
  /// write, and `nothing` never does.
  func snapshot(over above: EnvironmentSnapshot, at generation: UInt64, of node: EnvironmentNode)
    -> EnvironmentSnapshot
  {
    if !hasOverrides, above !== EnvironmentSnapshot.nothing { return above }
    return EnvironmentSnapshot(
      generation: generation, top: overrides(of: node), base: above.flattened)
  }

  /// Caches what the node sees when its parent sees `above`, resolved at `generation`.
  ///
  /// Only while the generation is still the one the snapshot was read at: a write that came in
  /// between may already have retired this node's cache, and must not find an old snapshot put
  /// back behind it. Nor over a cache that is at least as fresh.
  mutating func cache(
    over above: EnvironmentSnapshot, at generation: UInt64, of node: EnvironmentNode
  ) {
    guard EnvironmentGeneration.current == generation, !isFresh(at: generation) else { return }
    cache =
      hasOverrides
      ? .overParent(above) : .snapshot(snapshot(over: above, at: generation, of: node))
  }
}

/// The values a node sees, resolved at a generation: its overrides (`top`) laid over everything
/// its ancestors provide (`base`, flattened into one map).
///
/// A node without overrides shares the snapshot of the node above it. A node with overrides
/// does not copy its parent's values to resolve. The flattened map is built only when a child
/// with overrides of its own needs it, and is then kept.
final class EnvironmentSnapshot: Sendable {
  /// The generation loaded before the data was read: the snapshot is at least this fresh.
  let generation: UInt64
  let top: SlotMap
  let base: SlotMap
  /// The flattened map, once made: published once, then read with one atomic load, because a
  /// node with overrides reads it on every read of its values.
  private let flat = AtomicLazyReference<SlotStorage>()

  init(generation: UInt64, top: SlotMap, base: SlotMap) {
    self.generation = generation
    self.top = top
    self.base = base
  }

  /// What a root's parent would provide: nothing, fresh at every generation. A root with
  /// overrides lays them over it; no child is given it (see `State.snapshot(over:at:)`).
  static let nothing = EnvironmentSnapshot(generation: .max, top: .empty, base: .empty)

  /// The values, ready to read.
  var values: EnvironmentValues {
    EnvironmentValues(top: top, base: base)
  }

  /// The values as one map.
  ///
  /// Always inlined: called out of line on a snapshot read from a node's state, the call made
  /// the compiler retain and release the snapshot around it.
  @inline(__always)
  var flattened: SlotMap {
    if top.isEmpty { return base }
    if base.isEmpty { return top }
    if let flat = flat.load() { return SlotMap(flat) }
    // Both maps hold a slot, so the merged map holds one too: its storage is never nil.
    guard let merged = base.merging(top).storage else { return .empty }
    return SlotMap(flat.storeIfNil(merged))
  }
}
