import Synchronization

/// What a ``EnvironmentValues/Derived`` value has that does not depend on its type: its
/// lifetime, where it was declared, how to build it, the keys its kept values are anchored by,
/// and the builds under way.
///
/// Where a built value is kept: a value of lifetime `onePerInputs` is kept in the cache of its
/// *anchor*, the own frame that holds the nearest of the writes its build read (the write of the
/// deepest node, or of free-standing values): the node's one `DerivedCache`, which every frame
/// of the node shares. Every reader that sees that write finds the cache, so readers that see
/// the same inputs find the value in one place, and a write that replaces one of its inputs
/// evicts it. A value built from defaults alone, or one per process, is kept in
/// ``processCell``.
///
/// How a value is built once per set of inputs, the protocol in a paragraph: a read that finds
/// no current cell where the learned anchors point takes the `claims` lock. Under it, it looks
/// for a current cell in every place one can be kept (the cache of each learned anchor's frame
/// it sees, ``processCell``, and what a write parked with the view the values read through),
/// then for a build under way whose claim matches it (the same stamps for the keys learned when
/// the build was claimed), and waits for that build with no lock held; else it claims a build,
/// which it runs with no lock held. A finished build decides, with no lock held, whether its
/// cell is current for the anchor's node (`placement(of:in:)`), then under the lock again keeps
/// it in the node's cache if no write reached the node since (or hands its readers the cell
/// that another build for the same inputs kept there first), and wakes its waiters, who look
/// again; a build that finds a write reached the node checks again, still claimed.
/// `DerivedProtocolModelTests` checks every interleaving of this protocol for two and three
/// readers and a writer.
@usableFromInline
final class AnyDerived: Sendable {
  let lifetime: EnvironmentValues.DerivedLifetime
  /// Where the value is declared: the call site of its issues.
  let declaration: CallSite
  /// Builds the value from the values given.
  let make: @Sendable (EnvironmentValues) throws -> StoredValue
  /// What a read gets when the build fails; `nil` when there is no fallback.
  let fallback: StoredValue?
  /// The value built from defaults alone, or the one kept for the process.
  let processCell = Lock<DerivedCell?>(nil)
  /// The newest list of learned keys; see ``withLearned(_:)``.
  private let learnedKeys = ChainedReference(KeyList([], known: []))
  /// The builds under way; guarded with every decision about builds, taken for lookups and
  /// stores only, never while a build runs or a reader waits.
  let claims = Lock<[DerivedBuild]>([])
  /// The name of the accessor the value was first written through, for an override's
  /// diagnostics.
  @usableFromInline let learnedName = LazyReference<AccessorName>()

  /// Creates a derived value from the closure that knows the value's type; see
  /// ``EnvironmentValues/Derived/init(_:fallback:fileID:filePath:line:column:_:)``, which makes
  /// it where the value is declared, so that it is specialized there.
  @usableFromInline
  init(
    lifetime: EnvironmentValues.DerivedLifetime, declaration: CallSite,
    make: @escaping @Sendable (EnvironmentValues) throws -> StoredValue,
    fallback: consuming StoredValue?
  ) {
    self.lifetime = lifetime
    self.declaration = declaration
    self.make = make
    self.fallback = fallback
  }

  /// The keys the value is read by and kept with: ``KeyList/keys`` are every key a build read
  /// first-hand, for claims; ``KeyList/anchors`` the keys whose frames kept values were anchored
  /// by. Lists are never changed, only followed by longer ones, which only `learn` makes, under
  /// `claims`: so a cached read loads them with no lock.
  func withLearned<Result>(_ body: (KeyList) -> Result) -> Result {
    learnedKeys.withLoaded(body)
  }

  /// Adds the keys of a build's reads, and the anchor of its cell, to what is learned; call it
  /// holding `claims`.
  func learn(_ reads: [ReadRecorder.Read], anchor: ObjectIdentifier?) {
    withLearned { list in
      let isNew = { (key: ObjectIdentifier) in !list.known.contains(key) }
      let isNewAnchor = anchor.map { !list.anchors.contains($0) } ?? false
      guard isNewAnchor || reads.contains(where: { isNew($0.key) }) else { return }
      var keys = list.keys
      var known = list.known
      for read in reads where known.insert(read.key).inserted { keys.append(read.key) }
      var anchors = list.anchors
      if isNewAnchor, let anchor { anchors.append(anchor) }
      // The new list holds the one it replaces, so a reader still reading that one can.
      learnedKeys.replace(with: KeyList(keys, known: known, anchors: anchors, previous: list))
    }
  }
}

extension AnyDerived: NamedKey {
  /// Learns the name of the accessor an override of the value is written through, the first
  /// time.
  @inlinable @inline(__always)
  func learnName(_ accessor: StaticString) {
    if learnedName.load() == nil { learnedName.storeIfNil(AccessorName(accessor)) }
  }

  var accessorName: String? { learnedName.load()?.text }
}

/// An append-only list of keys; see ``AnyDerived/withLearned(_:)``.
final class KeyList: Sendable {
  let keys: [ObjectIdentifier]
  /// The same keys, to look one up without a search.
  let known: Set<ObjectIdentifier>
  /// The keys kept values were anchored by.
  let anchors: [ObjectIdentifier]
  /// The list this one replaced, kept alive for whoever still reads it.
  private let previous: KeyList?

  init(
    _ keys: [ObjectIdentifier], known: Set<ObjectIdentifier>, anchors: [ObjectIdentifier] = [],
    previous: KeyList? = nil
  ) {
    self.keys = keys
    self.known = known
    self.anchors = anchors
    self.previous = previous
  }
}
