import Dispatch
import Synchronization

/// A build of a ``EnvironmentValues/Derived`` value under way: what it is, what it reads, and the
/// readers that wait for it.
///
/// Claimed by the thread that runs it, under its declaration's `claims`, and finished there
/// too: from then on its ``result`` is the cell its readers get, or `nil` if it failed.
final class DerivedBuild: Sendable {
  let derivation: AnyDerived
  let name: ValueName
  /// The build that read this value, on the same logical thread.
  let parent: DerivedBuild?
  /// How many builds this one is nested in, plus one.
  let depth: Int
  /// Whether the value, or one that reads it, is kept and shared by several nodes.
  let isShared: Bool
  /// The values the build reads, whose reporter its issues go to.
  let values: EnvironmentValues
  /// Records what the build reads.
  let recorder = ReadRecorder()
  /// The thread the builds of this one's chain run on, which waits and is waited for.
  let builder: UInt
  /// The keys learned when the build was claimed, and a hash of the stamps the claimer saw for
  /// them: a reader whose stamps hash the same waits for this build rather than build one of its
  /// own. `nil` keys: none was learned yet, so any reader may wait, but no wait for this build
  /// is taken for a cycle (see ``DerivationWaits``).
  let claimKeys: KeyList?
  private let claimHash: UInt64
  /// What the builds of this one's chain found not current: shared from the outermost.
  let staleCells: StaleCells
  /// The cell readers get, once the build ended well.
  let result = LazyReference<DerivedCell>()
  private let phaseCode = Atomic<UInt8>(Phase.building.rawValue)
  private let wakeup = Lock<(waiters: Int, semaphore: DispatchSemaphore?)>((0, nil))

  enum Phase: UInt8 {
    case building
    case finished
  }

  init(
    derivation: AnyDerived, name: ValueName, parent: DerivedBuild?, values: EnvironmentValues,
    claiming keys: KeyList? = nil
  ) {
    self.derivation = derivation
    self.name = name
    self.parent = parent
    self.depth = (parent?.depth ?? 0) + 1
    self.staleCells = parent?.staleCells ?? StaleCells()
    self.isShared = derivation.lifetime != .newOnEveryRead || parent?.isShared == true
    self.values = values.unrecorded
    self.builder = currentThreadID()
    let learned = keys.flatMap { $0.keys.isEmpty ? nil : $0 }
    self.claimKeys = learned
    self.claimHash = learned.map { Self.hash(of: $0.keys, in: values) } ?? 0
  }

  /// Where the build's issues go.
  var reporter: IssueReporter { values.issueReporter }

  /// The builds in progress on this logical thread, innermost first.
  var chain: [DerivedBuild] {
    var builds = [self]
    while let parent = builds[builds.count - 1].parent { builds.append(parent) }
    return builds
  }

  var isFinished: Bool { phaseCode.load(ordering: .acquiring) == Phase.finished.rawValue }

  /// Whether a reader of `values` that waits for this build surely waits for the same inputs:
  /// the keys were learned when it was claimed, or the reader reads the very values it does.
  func isCertainlyFor(_ values: EnvironmentValues) -> Bool {
    claimKeys != nil || (values.own === self.values.own && values.base === self.values.base)
  }

  /// Whether `values` sees what the claim was made from, as far as the hash tells.
  func claimMatches(_ values: EnvironmentValues) -> Bool {
    guard let claimKeys else { return true }
    return Self.hash(of: claimKeys.keys, in: values) == claimHash
  }

  /// A hash of the stamps `values` has for `keys`.
  private static func hash(of keys: [ObjectIdentifier], in values: EnvironmentValues) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for key in keys { hash = (hash ^ values.stamp(of: key)) &* 0x0000_0100_0000_01B3 }
    return hash
  }

  /// Ends the build with the cell its readers get, `nil` if it failed. Call it under the
  /// declaration's `claims`, where readers decide, so that none finds the build kept but
  /// still running; then ``wakeWaiters()``.
  func finish(with cell: DerivedCell?) {
    if let cell { result.storeIfNil(cell) }
    phaseCode.store(Phase.finished.rawValue, ordering: .releasing)
  }

  /// Wakes every reader waiting for the build, which ``finish(with:)`` ended.
  func wakeWaiters() {
    let (waiters, semaphore) = wakeup.withLock { $0 }
    for _ in 0..<waiters { semaphore?.signal() }
  }

  /// Waits until the build ends, unless waiting would close a cycle of threads that wait for
  /// each other's builds.
  func waitUntilFinished(reading values: EnvironmentValues) -> DerivationWaits.Outcome {
    let outcome = DerivationWaits.register(waitingFor: self, certainly: isCertainlyFor(values))
    guard case .waited = outcome else { return outcome }
    defer { DerivationWaits.unregister() }
    let semaphore = wakeup.withLock { state -> DispatchSemaphore? in
      // Checked under the lock `wakeWaiters` reads the count under: a build that ends after
      // this sees the waiter and signals it.
      guard !isFinished else { return nil }
      state.waiters += 1
      if state.semaphore == nil { state.semaphore = DispatchSemaphore(value: 0) }
      return state.semaphore
    }
    semaphore?.wait()
    return .waited
  }

  /// The innermost build running on this thread.
  static var innermost: DerivedBuild? { innermostSlot.object(as: DerivedBuild.self) }

  private static let innermostSlot = ThreadSlot()

  /// The identity this thread builds and waits under.
  static var currentBuilder: UInt { currentThreadID() }

  /// Runs `body` as the innermost build of its chain, on this thread, then makes this build's
  /// parent the innermost again: the parent must be the innermost build when this is called.
  func run<Result>(_ body: () -> Result) -> Result {
    Self.innermostSlot.store(self)
    defer { Self.innermostSlot.store(parent) }
    return body()
  }

  /// How many builds may nest, each inside the one that reads it: they run on the stack of the
  /// thread that read the outermost, so a read that would nest one more is reported and gets
  /// its value's fallback.
  static let depthLimit = 256

  /// Whether a build of `derivation` is under way on this build's chain, this one included:
  /// at most ``depthLimit`` builds to look at.
  func chainIsBuilding(_ derivation: AnyDerived) -> Bool {
    var cursor: DerivedBuild? = self
    while let build = cursor {
      if build.derivation === derivation { return true }
      cursor = build.parent
    }
    return false
  }
}

/// Which logical thread waits for which build, process-wide, to find threads that would wait
/// for each other forever. Only a reader about to wait for another thread's build takes its
/// lock; no build, and no read of a built value, does.
enum DerivationWaits {
  /// What each logical thread waits for, and whether it surely waits for the same inputs.
  private static let waiting = Lock<[UInt: (build: DerivedBuild, isCertain: Bool)]>([:])

  /// What became of a wait.
  enum Outcome {
    /// The build waited for ended.
    case waited
    /// Waiting would close this cycle of builds, the one waited for first: each would wait for
    /// the next forever.
    case cycle([DerivedBuild])
    /// Waiting might close a cycle, but through a build claimed before its keys were learned,
    /// which may be for other inputs: the reader builds its own value instead.
    case independent
  }

  /// Records that this thread waits for `build`, unless the thread that runs it waits, through
  /// others, for this one.
  ///
  /// Every build on the way must still be running: a thread registered as waiting for a build
  /// that has finished is about to wake, and is no edge. Phases only move forward, and a thread
  /// waiting for a build still running cannot finish its own meanwhile; so a chain found running
  /// build by build is a chain of threads that all wait at once, and one that comes back to this
  /// thread would never end. A wait for a build claimed before its value's keys were learned may
  /// be for other inputs than the waiter's (unless the waiter reads the very values the build
  /// does), which that build would never read: a cycle through one is not certain, so two
  /// threads whose values read each other only in different subtrees are not taken for a cycle;
  /// the reader that would close it builds its own value.
  static func register(waitingFor build: DerivedBuild, certainly isCertainWait: Bool) -> Outcome {
    let me = DerivedBuild.currentBuilder
    return waiting.withLock { waiting in
      var cycle = [build]
      var isCertain = isCertainWait
      var next = build
      while !next.isFinished {
        if next.builder == me { return isCertain ? .cycle(cycle) : .independent }
        guard let waited = waiting[next.builder] else { break }
        cycle.append(waited.build)
        isCertain = isCertain && waited.isCertain
        next = waited.build
      }
      waiting[me] = (build, isCertainWait)
      return .waited
    }
  }

  static func unregister() {
    let me = DerivedBuild.currentBuilder
    waiting.withLock { $0[me] = nil }
  }

  /// The readers waiting for a build of `derivation` now: what tests wait for to make a build
  /// finish only once another thread waits for it.
  static func readersWaiting(for derivation: AnyDerived) -> Int {
    waiting.withLock { $0.values.filter { $0.build.derivation === derivation }.count }
  }

  /// Whether a build of `derivation` is under way: what tests wait for to read a value while
  /// another thread builds it.
  static func isBuilding(_ derivation: AnyDerived) -> Bool {
    derivation.claims.withLock { !$0.isEmpty }
  }
}

extension EnvironmentValues {
  /// These values without a recorder: what Milieu itself reads must not count as an input.
  var unrecorded: EnvironmentValues {
    var values = self
    values.recorder = nil
    return values
  }
}
