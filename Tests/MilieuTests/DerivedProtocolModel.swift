import Testing

// The states and steps of `DerivedProtocolModelTests`' model of the derived-value protocol: what
// the model keeps of the implementation, each step it can take, and the check of its promise.

extension DerivedProtocolModelTests {
  // MARK: States

  /// An own frame: its node's, and which of them. Generation 0 is the node's first; 1 is the
  /// one the write gives it: the written node's new frame, or a descendant's frame reissued
  /// because its table dropped a value.
  struct Frame: Hashable {
    var node: Int
    var generation: Int
  }

  /// What a read finds for a key: the write, the depth of the node that made it, and its home.
  struct Found: Hashable {
    var stamp: Int
    var depth: Int
    var home: Frame
  }

  /// A reader's values: what it finds for each key written in them, and every own frame they
  /// hold, its node's first (where a claim made before any anchor is learned gives tables).
  struct View: Hashable {
    var found: [String: Found] = [:]
    var frames: [Frame] = []

    func stamp(of key: String) -> Int { found[key]?.stamp ?? 0 }
  }

  /// A write of a key: what a table's successor leaves behind.
  struct Stamped: Hashable {
    var key: String
    var stamp: Int
  }

  /// A `DerivedCellTable`: the cell kept for each derived value, and, once a write dropped one
  /// of them, the table that took its place and the writes that one left behind.
  struct Table: Hashable {
    var cells: [Int: Int] = [:]
    var successor: Int?
    var leftBehind: Set<Stamped> = []
  }

  /// A build and the cell it makes.
  struct Cell: Hashable {
    var derivation: Int
    /// The stamps the claimer saw for the keys learned when it claimed; `nil` when none was
    /// learned, so that any reader waits for it.
    var claim: [String: Int]?
    /// Whether it was claimed after the write.
    var isClaimedAfterWrite: Bool
    /// The stamps the build read, once built.
    var inputs: [String: Int]?
    /// The home of the nearest write the build read: the frame whose table keeps it.
    var anchor: Frame?
    /// The cell its readers get, once finished: this one, or one kept for the same inputs first.
    var result: Int?
  }

  /// What a derived value learned: every key its builds read, and their anchors' keys.
  struct Learned: Hashable {
    var keys: [String] = []
    var anchors: [String] = []
  }

  /// Where a reader is in its read, and the build it claimed, waits for or got.
  enum Step: Hashable {
    case idle  // to take its values
    case start  // to look in the tables with no lock
    case locked  // to look or claim under `claims`
    case building(Int)
    case following(Int, from: Int)  // under `claims`: to follow the table's successors
    case keeping(Int, into: Int?)  // under `claims`: to keep the cell in the table, or nowhere
    case waiting(Int)
    case done(Int)
  }

  /// A reader's thread: its step, and the values it took.
  struct Thread: Hashable {
    var step = Step.idle
    var values = View()
  }

  /// Everything the protocol decides from, between two steps.
  struct State: Hashable {
    var readers: [Thread]
    var isWritten = false
    /// Each node's own frame now.
    var frames: [Frame]
    var attachments: [Frame: Int] = [:]
    var tables: [Table] = []
    var processCells: [Int: Int] = [:]
    var learned: [Learned]
    var underWay: [[Int]]
    var cells: [Cell] = []
  }

  /// What broke the promise in a final state, and the first interleaving found that breaks it.
  struct Problem: Hashable, CustomStringConvertible {
    var summary: String
    var trace: [String]

    var description: String { ([summary] + trace).joined(separator: "\n  ") }
  }

  /// The behaviour the defects of `DerivedKeepingTests` came from, put back into the model to
  /// show that its check catches each.
  enum OldBehaviour {
    /// A build keeps its cell in the table of the frame it read, not in that table's successor.
    case keepsWhereItRead
    /// A write that drops a value hands on a new table that the old one does not name.
    case namesNoSuccessor
    /// A claim gives no frame a table: a build makes one at its anchor when it keeps.
    case preparesNoTables
    /// A write whose new frame already has a table (a value read in the update's body) drops
    /// the table it carries.
    case dropsTheCarriedTable
    /// A write to a node with no write of the key replaces the key's default, not the write the
    /// node inherits.
    case replacesTheDefault
  }

  // MARK: The model

  struct Model {
    let graph: Graph
    let oldBehaviour: OldBehaviour?
    /// The graph's readers, then the update's body if it reads.
    let readers: [Reader]
    let bodyReader: Int?
    let depths: [Int]
    /// The written node and its descendants, parents first.
    let subtree: [Int]
    /// The write the writer replaces: what its node saw for the key.
    let replaced: Stamped?

    init(_ graph: Graph, oldBehaviour: OldBehaviour? = nil) {
      self.graph = graph
      self.oldBehaviour = oldBehaviour
      var readers = graph.readers
      bodyReader = graph.writer?.bodyRead.map { _ in readers.count }
      if let writer = graph.writer, let derivation = writer.bodyRead {
        readers.append(Reader(node: writer.node, derivation: derivation))
      }
      self.readers = readers
      depths = graph.nodes.map { node in
        Array(sequence(first: node) { $0.parent.map { graph.nodes[$0] } }).count - 1
      }
      var subtree = graph.writer.map { [$0.node] } ?? []
      var next = 0
      while next < subtree.count {
        let parent = subtree[next]
        subtree.insert(
          contentsOf: graph.nodes.indices.filter { graph.nodes[$0].parent == parent },
          at: next + 1)
        next += 1
      }
      self.subtree = subtree
      // What the node saw for the key: its own write, or the one it inherits, or the default.
      replaced = graph.writer.map { writer in
        var cursor: Int? = writer.node
        while let node = cursor, graph.nodes[node].writes[writer.key] == nil {
          cursor = graph.nodes[node].parent
        }
        return Stamped(
          key: writer.key, stamp: cursor.flatMap { graph.nodes[$0].writes[writer.key] } ?? 0)
      }
    }

    var initial: State {
      State(
        readers: Array(repeating: Thread(), count: readers.count),
        frames: graph.nodes.indices.map { Frame(node: $0, generation: 0) },
        learned: Array(repeating: Learned(), count: graph.derivations.count),
        underWay: Array(repeating: [], count: graph.derivations.count))
    }

    /// The writes of `node`'s own frame, before or after the write.
    func writes(of node: Int, isWritten: Bool) -> [String: Int] {
      var writes = graph.nodes[node].writes
      if isWritten, let writer = graph.writer, writer.node == node {
        writes[writer.key] = writer.stamp
      }
      return writes
    }

    /// The values a reader at `node` takes now; in the update's body, the values it writes,
    /// whose own frame is the one the write will give the node.
    func view(at node: Int, in state: State, inBody: Bool) -> View {
      var view = View()
      // The keys of what the node inherits, each with its nearest write above the node.
      var inherited: Set<String> = []
      var cursor: Int? = node
      while let current = cursor {
        let isScratch = inBody && current == graph.writer?.node
        let frame = isScratch ? Frame(node: current, generation: 1) : state.frames[current]
        let writes = writes(of: current, isWritten: state.isWritten || isScratch)
        if current == node, !writes.isEmpty { view.frames.append(frame) }
        for (key, stamp) in writes.sorted(by: { $0.key < $1.key }) {
          if view.found[key] == nil {
            view.found[key] = Found(stamp: stamp, depth: depths[current], home: frame)
          }
          if current != node, inherited.insert(key).inserted, !view.frames.contains(frame) {
            view.frames.append(frame)
          }
        }
        cursor = graph.nodes[current].parent
      }
      return view
    }

    func isCurrent(_ cell: Cell, for view: View) -> Bool {
      guard let inputs = cell.inputs else { return false }
      return inputs.allSatisfy { view.stamp(of: $0.key) == $0.value }
    }

    func reads(_ cell: Cell, anyOf writes: Set<Stamped>) -> Bool {
      cell.inputs?.contains { writes.contains(Stamped(key: $0.key, stamp: $0.value)) } ?? false
    }

    /// A cell current for `view` kept with a learned anchor's home, or for the process.
    func currentCell(of derivation: Int, for view: View, in state: State) -> Int? {
      for anchor in state.learned[derivation].anchors {
        guard let home = view.found[anchor]?.home, let table = state.attachments[home],
          let id = state.tables[table].cells[derivation], isCurrent(state.cells[id], for: view)
        else { continue }
        return id
      }
      guard let id = state.processCells[derivation], isCurrent(state.cells[id], for: view)
      else { return nil }
      return id
    }

    /// Whether a build of `derivation` holds its `claims` between the steps of its finish.
    func holdsClaims(_ derivation: Int, in state: State) -> Bool {
      state.readers.contains { thread in
        switch thread.step {
        case .following(let id, _), .keeping(let id, _):
          return state.cells[id].derivation == derivation
        default:
          return false
        }
      }
    }

    /// The table attached to `frame`, attached now if it has none.
    func table(of frame: Frame, in state: inout State) -> Int {
      if let table = state.attachments[frame] { return table }
      state.tables.append(Table())
      state.attachments[frame] = state.tables.count - 1
      return state.tables.count - 1
    }

    /// The table that keeps what `table` kept: it, or its successor's, and so on; `nil` if the
    /// cell read a write a successor left behind.
    func latest(from table: Int, for cell: Cell, in state: State) -> Int? {
      if oldBehaviour == .keepsWhereItRead { return table }
      var table = table
      while let successor = state.tables[table].successor {
        if reads(cell, anyOf: state.tables[table].leftBehind) { return nil }
        table = successor
      }
      return table
    }

    // MARK: Steps

    /// Every state one thread steps to from `state`: a reader, or the writer (the last thread).
    func successors(of state: State) -> [(thread: Int, state: State)] {
      var next: [(thread: Int, state: State)] = []
      for reader in readers.indices {
        if let moved = step(reader, in: state) { next.append((reader, moved)) }
      }
      if let moved = write(in: state) { next.append((readers.count, moved)) }
      return next
    }

    /// The state `reader` steps to from `state`, if it can step.
    func step(_ reader: Int, in state: State) -> State? {
      let derivation = readers[reader].derivation
      let values = state.readers[reader].values
      var moved = state
      switch state.readers[reader].step {
      case .idle:
        moved.readers[reader].values = view(
          at: readers[reader].node, in: state, inBody: reader == bodyReader)
        moved.readers[reader].step = .start
      case .start:
        // The cached read: the learned anchors' tables, with no `claims` lock.
        moved.readers[reader].step =
          currentCell(of: derivation, for: values, in: state).map { .done($0) } ?? .locked
      case .locked:
        guard !holdsClaims(derivation, in: state) else { return nil }
        moved.readers[reader].step = lookOrClaim(derivation, for: values, in: &moved)
      case .building(let id):
        guard !holdsClaims(derivation, in: state) else { return nil }
        moved.readers[reader].step = build(id, for: values, in: &moved)
      case .following(let id, let table):
        moved.readers[reader].step = .keeping(
          id, into: latest(from: table, for: state.cells[id], in: state))
      case .keeping(let id, let table):
        var result = id
        if let table {
          // Another build, claimed before this one learned keys, may have kept one first.
          if let first = state.tables[table].cells[derivation],
            isCurrent(state.cells[first], for: values)
          {
            result = first
          } else {
            moved.tables[table].cells[derivation] = id
          }
        }
        moved.cells[id].result = result
        moved.readers[reader].step = .done(result)
      case .waiting(let id):
        guard let result = state.cells[id].result else { return nil }
        moved.readers[reader].step =
          isCurrent(state.cells[result], for: values) ? .done(result) : .locked
      case .done:
        return nil
      }
      return moved
    }

    /// `claimOrFind` and `prepareTables`: under `claims`, a current cell; else a build under
    /// way whose claim the values match; else a new build.
    func lookOrClaim(_ derivation: Int, for values: View, in state: inout State) -> Step {
      if let id = currentCell(of: derivation, for: values, in: state) { return .done(id) }
      if let id = state.underWay[derivation].first(where: { id in
        state.cells[id].claim?.allSatisfy { values.stamp(of: $0.key) == $0.value } ?? true
      }) {
        return .waiting(id)
      }
      let learned = state.learned[derivation]
      let claim = Dictionary(uniqueKeysWithValues: learned.keys.map { ($0, values.stamp(of: $0)) })
      state.cells.append(
        Cell(
          derivation: derivation, claim: claim.isEmpty ? nil : claim,
          isClaimedAfterWrite: state.isWritten))
      state.underWay[derivation].append(state.cells.count - 1)
      if oldBehaviour != .preparesNoTables {
        // The learned anchors' homes; before any is learned, every frame the values hold.
        let frames =
          learned.anchors.isEmpty
          ? values.frames : learned.anchors.compactMap { values.found[$0]?.home }
        for frame in frames { _ = table(of: frame, in: &state) }
      }
      return .building(state.cells.count - 1)
    }

    /// The build, and the start of `buildAndKeep`'s finish under `claims`: unclaim, learn, and
    /// take the anchor's table; a cell with no anchor is kept for the process at once.
    func build(_ id: Int, for values: View, in state: inout State) -> Step {
      let derivation = state.cells[id].derivation
      let reads = graph.derivations[derivation].reads
      var nearest: (key: String, found: Found)?
      for key in reads {
        guard let found = values.found[key], nearest.map({ found.depth > $0.found.depth }) ?? true
        else { continue }
        nearest = (key, found)
      }
      state.cells[id].inputs = Dictionary(
        uniqueKeysWithValues: reads.map { ($0, values.stamp(of: $0)) })
      state.cells[id].anchor = nearest?.found.home
      state.underWay[derivation].removeAll { $0 == id }
      for key in reads where !state.learned[derivation].keys.contains(key) {
        state.learned[derivation].keys.append(key)
      }
      if let key = nearest?.key, !state.learned[derivation].anchors.contains(key) {
        state.learned[derivation].anchors.append(key)
      }
      guard let anchor = nearest?.found.home else {
        var result = id
        if let first = state.processCells[derivation], isCurrent(state.cells[first], for: values) {
          result = first
        } else {
          state.processCells[derivation] = id
        }
        state.cells[id].result = result
        return .done(result)
      }
      return .following(id, from: table(of: anchor, in: &state))
    }

    /// The write, if the writer can make it: under the node's lock, a new own frame with the
    /// new write; the table of the old one carried into it; then the walk below, which carries
    /// each descendant's table and reissues the frame of one whose table dropped a value.
    func write(in state: State) -> State? {
      guard let writer = graph.writer, let replaced, !state.isWritten else { return nil }
      if let bodyReader {
        // The update writes once its body has read.
        guard case .done = state.readers[bodyReader].step else { return nil }
      }
      var moved = state
      let outdated: Set<Stamped> =
        oldBehaviour == .replacesTheDefault
        ? [Stamped(key: writer.key, stamp: graph.nodes[writer.node].writes[writer.key] ?? 0)]
        : [replaced]
      let new = Frame(node: writer.node, generation: 1)
      moved.isWritten = true
      moved.frames[writer.node] = new
      if !graph.nodes[writer.node].writes.isEmpty,
        let table = state.attachments[state.frames[writer.node]]
      {
        let carried = carry(table, past: outdated, in: &moved)
        // A value read in the update's body may have given the new frame a table already.
        if let attached = moved.attachments[new], attached != carried {
          if oldBehaviour != .dropsTheCarriedTable { absorb(carried, into: attached, in: &moved) }
        } else {
          moved.attachments[new] = carried
        }
      }
      for node in subtree.dropFirst() where !graph.nodes[node].writes.isEmpty {
        guard let table = moved.attachments[moved.frames[node]] else { continue }
        let carried = carry(table, past: outdated, in: &moved)
        guard carried != table else { continue }
        let reissued = Frame(node: node, generation: 1)
        moved.frames[node] = reissued
        moved.attachments[reissued] = carried
      }
      return moved
    }

    /// `DerivedCellTable.carried(past:released:)`: the table itself if it drops nothing; else a
    /// new one with the cells that read none of `outdated`, which the table names as its
    /// successor with the writes it leaves behind. The implementation adds each value it drops
    /// to `outdated`, so that a value built from it drops too; no model value reads another.
    func carry(_ table: Int, past outdated: Set<Stamped>, in state: inout State) -> Int {
      let cells = state.tables[table].cells
      let kept = cells.filter { !reads(state.cells[$0.value], anyOf: outdated) }
      guard kept.count < cells.count else { return table }
      state.tables.append(Table(cells: kept))
      let next = state.tables.count - 1
      if oldBehaviour != .namesNoSuccessor {
        state.tables[table].successor = next
        state.tables[table].leftBehind = outdated
      }
      return next
    }

    /// `DerivedCellTable.absorb`: `attached` takes the cells of `carried` for the values it
    /// keeps none of, and `carried` names it as its successor, leaving nothing behind.
    func absorb(_ carried: Int, into attached: Int, in state: inout State) {
      for (derivation, id) in state.tables[carried].cells
      where state.tables[attached].cells[derivation] == nil {
        state.tables[attached].cells[derivation] = id
      }
      if state.tables[carried].successor == nil { state.tables[carried].successor = attached }
    }

    // MARK: The check

    /// Explores every interleaving; returns what broke the promise, if anything.
    func check() -> [Problem] {
      let (start, problem) = following(graph.prefix, from: initial)
      if let problem { return [Problem(summary: problem, trace: [])] }
      var seen: Set<State> = []
      var pending: [(state: State, path: [Int])] = [(start, [])]
      var found: [String: [Int]] = [:]
      while let (state, path) = pending.popLast() {
        guard seen.insert(state).inserted else { continue }
        let next = successors(of: state)
        if !next.isEmpty {
          pending += next.map { ($0.state, path + [$0.thread]) }
          continue
        }
        for summary in problems(in: state) where found[summary] == nil { found[summary] = path }
      }
      return found.keys.sorted().map { summary in
        Problem(summary: summary, trace: trace(found[summary] ?? [], from: start))
      }
    }

    /// Whether a cell was built, after the write, from values that hold the write it replaced:
    /// kept nowhere, so every reader of such values may build one.
    func isBuiltFromReplacedValues(_ cell: Cell) -> Bool {
      guard let replaced else { return false }
      return cell.isClaimedAfterWrite && reads(cell, anyOf: [replaced])
    }

    /// What breaks the promise in a final state.
    func problems(in state: State) -> [String] {
      var problems: [String] = []
      if graph.writer != nil, !state.isWritten { problems.append("the write never happened") }
      struct Instance: Hashable {
        var derivation: Int
        var inputs: [String: Int]
      }
      var live: [Instance: Set<Int>] = [:]
      for (reader, thread) in state.readers.enumerated() {
        guard case .done(let id) = thread.step else {
          problems.append("\(name(ofReader: reader)) never finished")
          continue
        }
        let derivation = readers[reader].derivation
        let seen = Dictionary(
          uniqueKeysWithValues: graph.derivations[derivation].reads.map {
            ($0, thread.values.stamp(of: $0))
          })
        if state.cells[id].inputs != seen {
          problems.append(
            "\(name(ofReader: reader)), which sees \(describe(seen, of: derivation)), got a value"
              + " built from \(describe(state.cells[id].inputs ?? [:], of: derivation))")
        }
        guard !isBuiltFromReplacedValues(state.cells[id]) else { continue }
        live[Instance(derivation: derivation, inputs: seen), default: []].insert(id)
      }
      for (instance, ids) in live where ids.count > 1 {
        problems.append(
          "\(ids.count) live values of \(graph.derivations[instance.derivation].name) for "
            + describe(instance.inputs, of: instance.derivation))
      }
      var builds: [Instance: Int] = [:]
      for cell in state.cells where !isBuiltFromReplacedValues(cell) {
        guard let inputs = cell.inputs else { continue }
        builds[Instance(derivation: cell.derivation, inputs: inputs), default: 0] += 1
      }
      for (instance, count) in builds where count > 1 {
        problems.append(
          "\(count) builds of \(graph.derivations[instance.derivation].name) for "
            + describe(instance.inputs, of: instance.derivation))
      }
      if let replaced, state.isWritten {
        for node in subtree where !writes(of: node, isWritten: true).isEmpty {
          guard let table = state.attachments[state.frames[node]] else { continue }
          for (derivation, id) in state.tables[table].cells
          where reads(state.cells[id], anyOf: [replaced]) {
            problems.append(
              "the table of \(graph.nodes[node].name)'s frame keeps a value of "
                + "\(graph.derivations[derivation].name) built from \(replaced.key) "
                + "\(replaced.stamp), which the write replaced")
          }
        }
      }
      return problems
    }

    /// The state `schedule` leads to from `state`, or why it cannot be followed.
    func following(_ schedule: [Phase], from state: State) -> (state: State, problem: String?) {
      var state = state
      for phase in schedule {
        switch phase {
        case .write:
          guard let moved = write(in: state) else { return (state, "the writer cannot write") }
          state = moved
        case .run(let reader), .claim(let reader):
          while true {
            if case .done = state.readers[reader].step { break }
            if case .claim = phase, case .building = state.readers[reader].step { break }
            guard let moved = step(reader, in: state) else {
              return (state, "\(name(ofReader: reader)) cannot step")
            }
            state = moved
          }
        }
      }
      return (state, nil)
    }

    /// What breaks the promise at the end of one schedule, which must leave every thread done.
    func problems(following schedule: [Phase]) -> [String] {
      let (state, problem) = following(schedule, from: initial)
      return problem.map { [$0] } ?? problems(in: state)
    }

    // MARK: Traces

    func name(ofReader reader: Int) -> String {
      let derivation = graph.derivations[readers[reader].derivation].name
      guard reader != bodyReader else { return "the update's body, reading \(derivation)," }
      return "reader \(reader) (\(derivation) at \(graph.nodes[readers[reader].node].name))"
    }

    func describe(_ stamps: [String: Int], of derivation: Int) -> String {
      graph.derivations[derivation].reads.map { "\($0) \(stamps[$0] ?? 0)" }
        .joined(separator: ", ")
    }

    func describe(_ frame: Frame) -> String {
      "\(graph.nodes[frame.node].name)'s frame \(frame.generation)"
    }

    /// The interleaving `path` (the thread that steps, step by step) from `start`, told step by
    /// step.
    func trace(_ path: [Int], from start: State) -> [String] {
      var state = start
      var lines = graph.prefix.map { phase in
        switch phase {
        case .run(let reader): "first, alone, \(name(ofReader: reader)) reads to the end"
        case .claim(let reader): "first, alone, \(name(ofReader: reader)) reads until it claims"
        case .write: "first, alone, the writer writes"
        }
      }
      for thread in path {
        guard let moved = thread < readers.count ? step(thread, in: state) : write(in: state)
        else { break }
        lines.append(describe(thread, from: state, to: moved))
        state = moved
      }
      return lines
    }

    /// The write, and the tables it made and linked.
    func describeWrite(from state: State, to moved: State) -> String {
      guard let writer = graph.writer else { return "" }
      let made = moved.tables.indices.dropFirst(state.tables.count).map { "table \($0)" }
      let links = state.tables.indices.compactMap { table in
        state.tables[table].successor == nil
          ? moved.tables[table].successor.map { "table \(table) names table \($0)" } : nil
      }
      return "the writer sets \(writer.key) \(writer.stamp) at \(graph.nodes[writer.node].name)"
        + (made.isEmpty ? "" : ", carrying into \(made.joined(separator: ", "))")
        + (links.isEmpty ? "" : "; \(links.joined(separator: ", "))")
    }

    func describe(_ reader: Int, from state: State, to moved: State) -> String {
      guard reader < readers.count else { return describeWrite(from: state, to: moved) }
      let derivation = readers[reader].derivation
      let who = name(ofReader: reader)
      let after = moved.readers[reader]
      switch (state.readers[reader].step, after.step) {
      case (.idle, _):
        let seen = graph.derivations[derivation].reads.map { key in
          "\(key) \(after.values.stamp(of: key))"
            + (after.values.found[key].map { " in \(describe($0.home))" } ?? "")
        }
        return "\(who) takes its values: \(seen.joined(separator: ", "))"
      case (.start, .done(let id)):
        return "\(who) finds build \(id) kept, with no lock"
      case (.start, _):
        return "\(who) finds nothing kept"
      case (.locked, .done(let id)):
        return "\(who) finds build \(id) kept, under claims"
      case (.locked, .waiting(let id)):
        return "\(who) waits for build \(id)"
      case (.locked, .building(let id)):
        return "\(who) claims build \(id)"
      case (.building(let id), .following(_, let table)):
        return "\(who) runs build \(id), from "
          + describe(moved.cells[id].inputs ?? [:], of: derivation)
          + ", and under claims takes table \(table), of "
          + (moved.cells[id].anchor.map(describe) ?? "no frame")
      case (.building(let id), .done(let result)):
        return "\(who) runs build \(id) and keeps build \(result) for the process"
      case (.following(_, let from), .keeping(_, let into)):
        return "\(who) follows table \(from) to "
          + (into.map { "table \($0)" } ?? "a successor that left its inputs behind")
      case (.keeping(let id, let table), .done(let result)):
        guard let table else { return "\(who) keeps build \(id) nowhere" }
        return result == id
          ? "\(who) keeps build \(id) in table \(table)"
          : "\(who) gets build \(result), kept in table \(table) first"
      case (.waiting(let id), .done(let result)):
        return "\(who) wakes from build \(id) to build \(result)"
      case (.waiting(let id), _):
        return "\(who) wakes from build \(id), built from other inputs"
      default:
        return "\(who) steps"
      }
    }
  }
}
