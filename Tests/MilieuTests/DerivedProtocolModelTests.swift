import Testing

/// Every interleaving of the protocol by which concurrent first reads build a derived value once
/// per set of inputs (see `AnyDerived`), and of a write that evicts from the caches of its node
/// and subtree the values built from the write it replaces (the protocol of
/// "How Milieu stays fresh and frees memory": one `DerivedCache` per node, which all its frames
/// share),
/// for two and three readers of one or two derived values, and at most one writer, over small
/// graphs, checked against the protocol's promise.
///
/// The promise, in every final state: every reader is done; for each derived value and each set
/// of inputs, at most one build and one live value; every reader gets a value built from the
/// values it sees, so one that sees the write never gets one built from the write it replaced;
/// and no cache of the written node or its subtree keeps a value built from the replaced write.
/// A build claimed before the write counts for the inputs it read; one claimed after it, from
/// values that still hold the replaced write, is kept nowhere by design, so every reader of such
/// values may build one, and none of them counts.
///
/// The model keeps what the protocol decides and drops what it does not. A graph is a tree of
/// nodes, each with the writes of its own frame (a write is a stamp, a number; 0 is a key's
/// default) and its cache's generation, derived values that each read a fixed list of plain
/// keys, readers that each read one derived value at one node, and at most one writer, which
/// replaces one key's write at one node as `node.set` does, optionally reading a derived value
/// inside its update's body first. A reader's values are a snapshot taken when it starts: for
/// each key, the write it finds, the depth of its node and the own frame that holds it (its
/// *home*). A frame's header records a generation: 0 for the frames a graph starts with; for the
/// frame the write gives its node, the one its update started from while the body runs (its
/// *pending* frame), then its cache's after the write's bump. A cache holds the cell kept for
/// each derived value and its generation. Dropped: values' contents, failed and provisional
/// builds, cycles, nested builds (so a value that read an evicted value, evicted in turn, is not
/// exercised: no model value reads another), discarding, lifetimes other than `onePerInputs`,
/// free-standing values and children made while the graph runs (so a cache with no node), nodes
/// freed (so an orphaned cache), what a write parks with the views it retires (it serves only
/// values that hold the replaced write, which the promise leaves out), and a stamp's hash
/// (claims compare stamps).
///
/// The atomic steps are the ones the implementation makes under one lock or in one atomic
/// operation: a reader's snapshot of its node; the look in the learned anchors' caches with no
/// `claims` lock; the look-or-claim under `claims`; the build, with no lock, and the step after
/// it: with no anchor, the finish under `claims` (kept for the process); with a pending home,
/// the finish under `claims` and the cache's lock; else the read of the home's cache's
/// generation under its lock (pinning its node), which picks the fast path (the
/// generation the home recorded) or the slow one; the slow path's snapshot of the node's values
/// with no lock, checked against the cell; the finish under `claims` and the cache's lock (keep
/// if the generation still holds, or hand out the cell kept first for the same inputs; unclaim;
/// learn; finish; if the generation moved, back to the slow path's snapshot, still claimed);
/// the look of a woken waiter; and the write, under the node locks, with its
/// new frame and, for its node and every descendant with an own frame, the eviction and the bump
/// under the cache's lock. Two of them take several locks in turn and are still one step: the
/// look with no lock only reads, and what it misses the look under `claims` finds; and a reader
/// waits for the write's node locks to read values, while each of its cache steps touches one
/// cache, so it orders with the write's step on that cache alone.
///
/// Every graph keeps the promise. `variantChecks` shows that the check can fail: each drops one of the
/// protocol's safeguards, with a schedule that keeps the promise under the protocol and breaks
/// it under the variant.
@Suite struct DerivedProtocolModelTests {
  // MARK: Graphs

  /// A node: its name, its parent, and the writes its own frame holds, by key.
  struct Node {
    var name: String
    var parent: Int?
    var writes: [String: Int] = [:]
    /// Its cache's generation when the graph starts, which its frame's header records as 0:
    /// past it when a write above reached the node after it made its frame.
    var generation = 0
  }

  /// A derived value: its name, and the plain keys its build reads, in order.
  struct Derivation {
    var name: String
    var reads: [String]
  }

  /// A reader: the node whose values it takes, and the derived value it reads there.
  struct Reader {
    var node: Int
    var derivation: Int
  }

  /// The write of a graph: at `node`, `key` gets the write `stamp`. With `bodyRead`, the
  /// update's body first reads that derived value from the values it writes, on the writer's
  /// thread, which then writes.
  struct Writer {
    var node: Int
    var key: String
    var stamp: Int
    var bodyRead: Int?
  }

  struct Graph: CustomTestStringConvertible {
    var name: String
    var nodes: [Node]
    var derivations: [Derivation]
    var readers: [Reader]
    var writer: Writer?
    /// What runs before the interleavings, one thread at a time: the check explores every
    /// interleaving of what is left.
    var prefix: [Phase] = []

    var testDescription: String { name }
  }

  // MARK: Graphs

  static let clientAndLogger = Derivation(name: "A", reads: ["client", "logger"])
  static let clientOnly = Derivation(name: "B", reads: ["client"])

  /// Graphs with one derived value and no writer: readers at one node, at nodes that share
  /// their inputs, at nodes that override one, at trees of their own.
  static let readerGraphs: [Graph] = [
    Graph(
      name: "three readers at one node",
      nodes: [Node(name: "app", writes: ["client": 1])],
      derivations: [clientAndLogger],
      readers: [
        Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 0),
        Reader(node: 0, derivation: 0),
      ]),
    Graph(
      name: "two at one node, one at an app of its own",
      nodes: [
        Node(name: "app", writes: ["client": 1]), Node(name: "other", writes: ["client": 2]),
      ],
      derivations: [clientAndLogger],
      readers: [
        Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 0),
        Reader(node: 1, derivation: 0),
      ]),
    Graph(
      name: "an app, a child that overrides another input, a sibling",
      nodes: [
        Node(name: "app", writes: ["client": 1]),
        Node(name: "feature", parent: 0, writes: ["logger": 3]),
      ],
      derivations: [clientAndLogger],
      readers: [
        Reader(node: 0, derivation: 0), Reader(node: 1, derivation: 0),
        Reader(node: 0, derivation: 0),
      ]),
    Graph(
      name: "defaults, and a node that sets one input",
      nodes: [Node(name: "app"), Node(name: "feature", parent: 0, writes: ["logger": 3])],
      derivations: [clientAndLogger],
      readers: [
        Reader(node: 0, derivation: 0), Reader(node: 1, derivation: 0),
        Reader(node: 0, derivation: 0),
      ]),
    Graph(
      name: "two readers, two inputs set at two depths",
      nodes: [
        Node(name: "app", writes: ["client": 1]),
        Node(name: "feature", parent: 0, writes: ["logger": 3]),
      ],
      derivations: [clientAndLogger],
      readers: [Reader(node: 1, derivation: 0), Reader(node: 1, derivation: 0)]),
    // `DerivedKeepingTests`: a request whose frame takes a freed one's place. The model's
    // frames have no addresses; what is left is a request that overrides a key the value does
    // not read, which finds the app's value.
    Graph(
      name: "a request that overrides a key the value does not read",
      nodes: [
        Node(name: "app", writes: ["client": 1]),
        Node(name: "overriding", parent: 0, writes: ["client": 2]),
        Node(name: "request", parent: 0, writes: ["retries": 3]),
      ],
      derivations: [clientOnly],
      readers: [
        Reader(node: 0, derivation: 0), Reader(node: 1, derivation: 0),
        Reader(node: 2, derivation: 0),
      ]),
  ]

  /// Graphs with a writer, and one or two derived values.
  ///
  /// The three problems the tables had are out of reach. 1, a stale value kept where readers
  /// look: a keep checks its cache's generation under the cache's lock, and the write evicts and
  /// bumps under the same lock after installing its frame, so either the check sees the bump
  /// (and the slow path sees the new values) or the eviction sees the kept cell. 2, a second
  /// build from values taken before a write: every frame of a node reaches the node's one cache,
  /// and the slow path keeps a cell built from old values that is current for the node now. 3,
  /// a keep lost to a write that carries a table: nothing is carried.
  ///
  /// A keep that finds the generation moved does not give up: the build stays claimed and the
  /// slow path checks the node's values again, so a write of a key the value does not read
  /// costs no second build.
  static let writerGraphs: [Graph] = [
    writerWithTwoReaders, buildInFlight, buildInFlightAfterAValueIsKept, sharedAnchorAtAChild,
    firstBuildAtANodeWithAChild, readInsideAnUpdate, shadowingWrite, takenBeforeAWrite,
    takenBeforeAWriteAbove, slowPathRacedByAWrite, slowPathRacedByAnUnrelatedWrite,
  ]

  /// A build in flight across the write, which replaces one of its inputs.
  static let writerWithTwoReaders = Graph(
    name: "a writer with two readers",
    nodes: [Node(name: "node", writes: ["client": 1, "logger": 2])],
    derivations: [clientAndLogger],
    readers: [Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 0)],
    writer: Writer(node: 0, key: "logger", stamp: 4))

  /// `DerivedKeepingTests`: a value built while a write evicts another kept with the node.
  static let buildInFlight = Graph(
    name: "a writer, and a build in flight of the value that survives",
    nodes: [Node(name: "node", writes: ["client": 1, "logger": 2])],
    derivations: [clientAndLogger, clientOnly],
    readers: [
      Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 1),
      Reader(node: 0, derivation: 1),
    ],
    writer: Writer(node: 0, key: "logger", stamp: 4))

  /// The same once A is kept, as in `DerivedKeepingTests`.
  static let buildInFlightAfterAValueIsKept = Graph(
    name: "a value kept, then a writer and a build in flight of another that survives",
    nodes: [Node(name: "node", writes: ["client": 1, "logger": 2])],
    derivations: [clientAndLogger, clientOnly],
    readers: [
      Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 1),
      Reader(node: 0, derivation: 1),
    ],
    writer: Writer(node: 0, key: "logger", stamp: 4), prefix: [.run(0)])

  /// Two values kept with the node, read at a child, whose cache the write reaches too.
  static let sharedAnchorAtAChild = Graph(
    name: "two values sharing an anchor, read at a child",
    nodes: [
      Node(name: "node", writes: ["client": 1, "logger": 2]),
      Node(name: "child", parent: 0, writes: ["retries": 3]),
    ],
    derivations: [clientAndLogger, clientOnly],
    readers: [
      Reader(node: 1, derivation: 0), Reader(node: 1, derivation: 1),
      Reader(node: 0, derivation: 1),
    ],
    writer: Writer(node: 0, key: "logger", stamp: 4))

  /// `DerivedKeepingTests`: a value first built at a node with a child, while a write
  /// replaces a value it does not read.
  static let firstBuildAtANodeWithAChild = Graph(
    name: "a first build at a node with a child, while a write replaces an unread key",
    nodes: [
      Node(name: "node", writes: ["client": 1, "greeting": 2]), Node(name: "child", parent: 0),
    ],
    derivations: [clientOnly],
    readers: [Reader(node: 0, derivation: 0), Reader(node: 1, derivation: 0)],
    writer: Writer(node: 0, key: "greeting", stamp: 4))

  /// `DerivedKeepingTests`: a value read inside an update's body, from its pending frame.
  static let readInsideAnUpdate = Graph(
    name: "a value read inside an update's body",
    nodes: [Node(name: "node", writes: ["client": 1])],
    derivations: [clientOnly, Derivation(name: "by ratio", reads: ["ratio"])],
    readers: [Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 0)],
    writer: Writer(node: 0, key: "ratio", stamp: 4, bodyRead: 1))

  /// `DerivedKeepingTests`: a write that shadows the write a node inherits, below which a
  /// value built from that one is kept.
  static let shadowingWrite = Graph(
    name: "a write that shadows the write a value kept below it read",
    nodes: [
      Node(name: "app", writes: ["client": 1]), Node(name: "feature", parent: 0),
      Node(name: "request", parent: 1, writes: ["retries": 2]),
    ],
    derivations: [Derivation(name: "holder", reads: ["client", "retries"])],
    readers: [Reader(node: 2, derivation: 0), Reader(node: 1, derivation: 0)],
    writer: Writer(node: 1, key: "client", stamp: 4))

  /// Race 2 on one thread: reader 0 takes the node's values, a write replaces a key the value
  /// does not read, then reader 0 reads from the values it took, and reader 1 from the node.
  static let takenBeforeAWrite = Graph(
    name: "values taken before a write of a key the value does not read",
    nodes: [Node(name: "node", writes: ["client": 1, "greeting": 2])],
    derivations: [clientOnly],
    readers: [Reader(node: 0, derivation: 0), Reader(node: 0, derivation: 0)],
    writer: Writer(node: 0, key: "greeting", stamp: 4), prefix: [.take(0), .write])

  /// The same with the write above the value's anchor: the node keeps its frame, and its
  /// cache's generation moves past the one the frame recorded.
  static let takenBeforeAWriteAbove = Graph(
    name: "values taken before a write above of a key the value does not read",
    nodes: [
      Node(name: "app", writes: ["greeting": 2]),
      Node(name: "feature", parent: 0, writes: ["client": 1]),
    ],
    derivations: [clientOnly],
    readers: [Reader(node: 1, derivation: 0), Reader(node: 1, derivation: 0)],
    writer: Writer(node: 0, key: "greeting", stamp: 4), prefix: [.take(0), .write])

  /// A value kept with a node that a write above reached before, so that every keep there takes
  /// the slow path, while a write above replaces one of its inputs.
  static let slowPathRacedByAWrite = Graph(
    name: "a slow path at a node written above before, raced by a write of an input above",
    nodes: [
      Node(name: "app", writes: ["client": 1, "greeting": 3]),
      Node(name: "request", parent: 0, writes: ["logger": 2], generation: 1),
    ],
    derivations: [clientAndLogger],
    readers: [Reader(node: 1, derivation: 0), Reader(node: 0, derivation: 0)],
    writer: Writer(node: 0, key: "client", stamp: 4))

  /// The same, raced by a write above of a key the value does not read.
  static let slowPathRacedByAnUnrelatedWrite = Graph(
    name: "a slow path at a node written above before, raced by a write of an unread key above",
    nodes: [
      Node(name: "app", writes: ["client": 1, "greeting": 3]),
      Node(name: "request", parent: 0, writes: ["logger": 2], generation: 1),
    ],
    derivations: [clientAndLogger],
    readers: [Reader(node: 1, derivation: 0), Reader(node: 1, derivation: 0)],
    writer: Writer(node: 0, key: "greeting", stamp: 4))

  /// A schedule's step: a reader takes its values, or runs until it claims a build, or until it
  /// is to keep its cell under `claims`, or until it is done; or the writer writes.
  enum Phase: Hashable {
    case take(Int)
    case claim(Int)
    case check(Int)
    case run(Int)
    case write

    var reader: Int? {
      switch self {
      case .take(let reader), .claim(let reader), .check(let reader), .run(let reader): reader
      case .write: nil
      }
    }

    /// Whether a reader that steps in this phase has reached its end at `step`.
    func isOver(at step: Step) -> Bool {
      switch (self, step) {
      case (_, .done), (.take, _), (.claim, .building), (.check, .keeping): true
      default: false
      }
    }
  }

  /// A variant of the protocol, with a graph and a schedule that keep the promise under the
  /// protocol and break it under the variant.
  struct VariantCheck: CustomTestStringConvertible {
    var variant: Variant
    var graph: Graph
    var schedule: [Phase]
    /// What the check reports at the end of the schedule under the variant.
    var problems: [String]

    var testDescription: String { "\(variant), \(graph.name)" }
  }

  static let variantChecks: [VariantCheck] = [
    VariantCheck(
      variant: .keepsWithoutChecking, graph: buildInFlight,
      schedule: [.claim(0), .write, .run(0), .run(1), .run(2)],
      problems: [
        "the cache of node keeps a value of A built from logger 2, which the write replaced"
      ]),
    VariantCheck(
      variant: .keepsWithoutRecheckingTheGeneration, graph: slowPathRacedByAWrite,
      schedule: [.check(0), .write, .run(0), .run(1)],
      problems: [
        "the cache of request keeps a value of A built from client 1, which the write replaced"
      ]),
    VariantCheck(
      variant: .cachesPerFrame, graph: takenBeforeAWrite,
      schedule: [.take(0), .write, .run(0), .run(1)],
      problems: ["2 builds of B for client 1", "2 live values of B for client 1"]),
    VariantCheck(
      variant: .keepsOnlyWhileTheGenerationHolds, graph: takenBeforeAWrite,
      schedule: [.take(0), .write, .run(0), .run(1)],
      problems: ["2 builds of B for client 1", "2 live values of B for client 1"]),
    VariantCheck(
      variant: .evictsTheDefault, graph: shadowingWrite, schedule: [.run(0), .write, .run(1)],
      problems: [
        "the cache of request keeps a value of holder built from client 1, which the write "
          + "replaced"
      ]),
    VariantCheck(
      variant: .evictsAtTheWrittenNodeOnly, graph: slowPathRacedByAWrite,
      schedule: [.run(0), .write, .run(1)],
      problems: [
        "the cache of request keeps a value of A built from client 1, which the write replaced"
      ]),
  ]

  /// A schedule of `DerivedKeepingTests` that a defect of the tables broke: the protocol keeps
  /// the promise at its end.
  struct KeepingSchedule: CustomTestStringConvertible {
    var graph: Graph
    var schedule: [Phase]

    var testDescription: String { graph.name }
  }

  static let keepingSchedules: [KeepingSchedule] = [
    KeepingSchedule(
      graph: buildInFlight, schedule: [.run(0), .claim(1), .write, .run(1), .run(2)]),
    KeepingSchedule(
      graph: firstBuildAtANodeWithAChild, schedule: [.claim(0), .write, .run(0), .run(1)]),
    KeepingSchedule(graph: readInsideAnUpdate, schedule: [.run(0), .run(2), .write, .run(1)]),
    KeepingSchedule(graph: shadowingWrite, schedule: [.run(0), .write, .run(1)]),
  ]

  /// Readers alone keep the promise in every interleaving.
  @Test(arguments: readerGraphs)
  func everyInterleavingOfReadersKeepsThePromise(graph: Graph) {
    let problems = Model(graph).check()
    #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
  }

  /// With a writer, every interleaving keeps the promise.
  @Test(arguments: writerGraphs)
  func everyInterleavingWithAWriteKeepsThePromise(graph: Graph) {
    let problems = Model(graph).check()
    #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
  }

  /// The schedules the tables' defects broke keep the promise.
  @Test(arguments: keepingSchedules)
  func theSchedulesTheTablesBrokeKeepThePromise(schedule: KeepingSchedule) {
    #expect(Model(schedule.graph).problems(following: schedule.schedule) == [])
  }

  /// The check can fail: each variant's schedule keeps the promise under the protocol, and
  /// breaks it under the variant.
  @Test(arguments: variantChecks)
  func eachVariantsScheduleKeepsThePromiseAndTheVariantBreaksIt(check: VariantCheck) {
    #expect(Model(check.graph).problems(following: check.schedule) == [])
    let variant = Model(check.graph, variant: check.variant)
    #expect(variant.problems(following: check.schedule).sorted() == check.problems)
  }
}
