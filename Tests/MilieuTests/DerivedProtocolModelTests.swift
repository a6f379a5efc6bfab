import Testing

/// Every interleaving of the protocol by which concurrent first reads build a derived value once
/// per set of inputs (see `AnyDerived`), for two and three readers over small graphs, checked
/// against its promise: one build and one live value per set of inputs, and every reader done.
///
/// The model keeps what the protocol decides and drops what it does not: a reader's values are
/// the slots it sees for each key (a slot is a number; its depth orders anchors), and a build
/// reads a fixed list of keys. The atomic steps are the ones the implementation makes under a
/// lock: the look in the anchor's table with no `claims` lock, the look-or-claim under `claims`,
/// the finish under `claims`, and the look again of a reader whose build finished.
@Suite struct DerivedProtocolModelTests {
  /// A slot: its identity, and the depth of the node that holds it; 0 is a key's default.
  struct Slot: Hashable {
    var id: Int
    var depth: Int
  }

  /// What a reader sees for each key.
  typealias View = [String: Slot]

  struct Cell: Hashable {
    var id: Int
    /// The keys learned when claimed, and the slots the claimer saw for them.
    var claim: [String: Slot]
    /// What the build read, once finished.
    var inputs: [String: Slot]?
    var anchor: Slot?
    var replacement: Int?
    var isFinished: Bool
  }

  enum Step: Hashable {
    case start
    case locked  // past the look with no lock: to look or claim under `claims`
    case building(Int)
    case waiting(Int)
    case done(Int)
  }

  struct State: Hashable {
    var steps: [Step]
    var learned: [String] = []
    var underWay: [Int] = []
    /// The cell kept in each place: a slot's table, or nil's, the process table.
    var tables: [Int: Int] = [:]
    /// Every cell made, by identifier less one.
    var cells: [Cell] = []
    var builds: [Int: [String: Slot]] = [:]
  }

  let reads: [String]
  let views: [View]

  func slot(_ key: String, in view: View) -> Slot { view[key] ?? Slot(id: 0, depth: -1) }

  func anchor(of view: View, keys: [String]) -> Slot? {
    keys.map { slot($0, in: view) }.filter { $0.id != 0 }
      .max { ($0.depth, $0.id) < ($1.depth, $1.id) }
  }

  func isCurrent(_ cell: Cell, for view: View) -> Bool {
    guard let inputs = cell.inputs else { return false }
    return inputs.allSatisfy { slot($0.key, in: view) == $0.value }
  }

  /// Every state the readers can step to from `state`.
  func successors(of state: State) -> [State] {
    var next: [State] = []
    for (reader, step) in state.steps.enumerated() {
      let view = views[reader]
      var moved = state
      switch step {
      case .start:
        // The cached read: the table the learned keys point to, with no `claims` lock.
        let place = anchor(of: view, keys: state.learned)?.id ?? 0
        if let id = state.tables[place], isCurrent(state.cells[id - 1], for: view) {
          moved.steps[reader] = .done(id)
        } else {
          moved.steps[reader] = .locked
        }
      case .locked:
        let places = [0] + state.learned.map { slot($0, in: view).id }.filter { $0 != 0 }
        if let id = places.compactMap({ state.tables[$0] }).first(where: {
          isCurrent(state.cells[$0 - 1], for: view)
        }) {
          moved.steps[reader] = .done(id)
        } else if let id = state.underWay.first(where: { id in
          state.cells[id - 1].claim.allSatisfy { slot($0.key, in: view) == $0.value }
        }) {
          moved.steps[reader] = .waiting(id)
        } else {
          let id = state.cells.count + 1
          let claim = Dictionary(
            uniqueKeysWithValues: state.learned.map { ($0, slot($0, in: view)) })
          moved.cells.append(
            Cell(
              id: id, claim: claim, inputs: nil, anchor: nil, replacement: nil,
              isFinished: false))
          moved.underWay.append(id)
          moved.steps[reader] = .building(id)
        }
      case .building(let id):
        // The build ran; it finishes under `claims`.
        let inputs = Dictionary(uniqueKeysWithValues: reads.map { ($0, slot($0, in: view)) })
        moved.builds[id] = inputs
        moved.underWay.removeAll { $0 == id }
        for key in reads where !moved.learned.contains(key) { moved.learned.append(key) }
        var cell = state.cells[id - 1]
        cell.inputs = inputs
        cell.anchor = anchor(of: view, keys: reads)
        cell.isFinished = true
        let place = cell.anchor?.id ?? 0
        if let first = state.tables[place], isCurrent(state.cells[first - 1], for: view) {
          cell.replacement = first
          moved.steps[reader] = .done(first)
        } else {
          moved.tables[place] = id
          moved.steps[reader] = .done(id)
        }
        moved.cells[id - 1] = cell
      case .waiting(let id):
        let cell = state.cells[id - 1]
        guard cell.isFinished else { continue }
        let built = state.cells[(cell.replacement ?? id) - 1]
        moved.steps[reader] = isCurrent(built, for: view) ? .done(built.id) : .start
      case .done:
        continue
      }
      next.append(moved)
    }
    return next
  }

  /// Explores every interleaving; returns what broke the promise, if anything.
  func check() -> [String] {
    var seen: Set<State> = []
    var pending = [State(steps: Array(repeating: .start, count: views.count))]
    var problems: Set<String> = []
    while let state = pending.popLast() {
      guard seen.insert(state).inserted else { continue }
      let next = successors(of: state)
      if !next.isEmpty {
        pending += next
        continue
      }
      // A final state: every reader must be done, once per set of inputs.
      var instances: [[String: Slot]: Set<Int>] = [:]
      for (reader, step) in state.steps.enumerated() {
        guard case .done(let id) = step else {
          problems.insert("reader \(reader) never finished")
          continue
        }
        let inputs = Dictionary(
          uniqueKeysWithValues: reads.map { ($0, slot($0, in: views[reader])) })
        instances[inputs, default: []].insert(id)
      }
      for (inputs, ids) in instances where ids.count > 1 {
        problems.insert("\(ids.count) live values for \(inputs.mapValues(\.id))")
      }
      var buildsPerInputs: [[String: Slot]: Int] = [:]
      for inputs in state.builds.values { buildsPerInputs[inputs, default: 0] += 1 }
      for (inputs, count) in buildsPerInputs where count > 1 {
        problems.insert("\(count) builds for \(inputs.mapValues(\.id))")
      }
    }
    return problems.sorted()
  }

  static let app = Slot(id: 1, depth: 1)
  static let otherApp = Slot(id: 2, depth: 1)
  static let feature = Slot(id: 3, depth: 2)

  /// Small graphs: readers at one node, at nodes that share their inputs, at nodes that
  /// override one, at trees of their own.
  static let graphs: [(name: String, views: [View])] = [
    ("three readers at one node", [["client": app], ["client": app], ["client": app]]),
    (
      "two at one node, one at an app of its own",
      [["client": app], ["client": app], ["client": otherApp]]
    ),
    (
      "an app, a child that overrides another input, a sibling",
      [
        ["client": app], ["client": app, "logger": feature], ["client": app],
      ]
    ),
    ("defaults, and a node that sets one input", [[:], ["logger": feature], [:]]),
    (
      "two readers, two inputs set at two depths",
      [
        ["client": app, "logger": feature], ["client": app, "logger": feature],
      ]
    ),
  ]

  @Test(arguments: graphs.indices)
  func everyInterleavingBuildsOncePerSetOfInputs(graph: Int) {
    let model = DerivedProtocolModelTests(
      reads: ["client", "logger"], views: Self.graphs[graph].views)
    #expect(model.check() == [], "\(Self.graphs[graph].name)")
  }

  init() {
    reads = []
    views = []
  }

  init(reads: [String], views: [View]) {
    self.reads = reads
    self.views = views
  }
}
