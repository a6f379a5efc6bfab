import Testing

// The states and steps of `DerivedProtocolModelTests`' model of the derived-value protocol: what
// the model keeps of the implementation, each step it can take, and the check of its promise.

extension DerivedProtocolModelTests {
  // MARK: States

  /// An own frame: its node's, and which of them: the one the node has when the graph starts, or
  /// the one the write gives it (while the update's body runs, its pending frame).
  struct Frame: Hashable {
    var node: Int
    var isNew = false
  }

  /// What a read finds for a key: the write, the depth of the node that made it, and its home.
  struct Found: Hashable {
    var stamp: Int
    var depth: Int
    var home: Frame
  }

  /// A reader's values: what it finds for each key written in them.
  struct View: Hashable {
    var found: [String: Found] = [:]

    func stamp(of key: String) -> Int { found[key]?.stamp ?? 0 }
  }

  /// A write of a key: what a write evicts the values built from.
  struct Stamped: Hashable {
    var key: String
    var stamp: Int
  }

  /// A `DerivedCache`: the cell kept for each derived value, and the generation that every write
  /// reaching its node bumps.
  struct Cache: Hashable {
    var cells: [Int: Int] = [:]
    var generation = 0
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
    /// The key of the nearest write the build read, and that write's home: the frame through
    /// whose cache it is kept.
    var anchor: String?
    var home: Frame?
    /// The cell its readers get, once finished: this one, or one kept for the same inputs first.
    var result: Int?
  }

  /// What a derived value learned: every key its builds read, and their anchors' keys.
  struct Learned: Hashable {
    var keys: [String] = []
    var anchors: [String] = []
  }

  /// Whether a finished build keeps its cell.
  enum Keeping: Hashable {
    case never
    /// If the cache's generation is still this one.
    case ifGeneration(Int)
    /// Whatever the generation: a value kept for the process, and some variants.
    case always
  }

  /// Where a reader is in its read, and the build it claimed, waits for or got.
  enum Step: Hashable {
    case idle  // to take its values
    case start  // to look in the learned anchors' caches with no lock
    case locked  // to look or claim under `claims`
    case building(Int)  // to build, then look at the anchor cache's generation
    case checking(Int, generation: Int)  // with no lock: to check it against the node's values
    case keeping(Int, Keeping)  // under `claims`, then the cache's lock: to keep and finish
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
    var caches: [Cache]
    /// The generation the new frame's header records: while the update's body runs, the one
    /// its update started from; once installed, its cache's after the write's bump. Every other
    /// frame records 0.
    var newFrameGeneration = 0
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

  /// The protocol with one of its safeguards dropped, to show that the check catches each.
  enum Variant {
    /// A build keeps its cell with no check: no generation, no look at the node's values.
    case keepsWithoutChecking
    /// The slow path keeps once the node's values match, whatever a write did since it read the
    /// generation.
    case keepsWithoutRecheckingTheGeneration
    /// Each own frame has a cache of its own, as the tables were: the new frame an empty one.
    case cachesPerFrame
    /// No slow path: a build whose home's generation moved is delivered, not kept.
    case keepsOnlyWhileTheGenerationHolds
    /// A write to a node with no write of the key evicts what was built from the key's default,
    /// not from the write the node inherits.
    case evictsTheDefault
    /// A write evicts from the written node's cache only; it still bumps every generation.
    case evictsAtTheWrittenNodeOnly
  }

  // MARK: The model

  struct Model {
    let graph: Graph
    let variant: Variant?
    /// The graph's readers, then the update's body if it reads.
    let readers: [Reader]
    let bodyReader: Int?
    let depths: [Int]
    /// The written node and its descendants, parents first.
    let subtree: [Int]
    /// The write the writer replaces: what its node saw for the key.
    let replaced: Stamped?

    init(_ graph: Graph, variant: Variant? = nil) {
      self.graph = graph
      self.variant = variant
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
      // With a cache per frame, the new frame's is the last.
      let extra = variant == .cachesPerFrame ? [Cache()] : []
      return State(
        readers: Array(repeating: Thread(), count: readers.count),
        frames: graph.nodes.indices.map { Frame(node: $0) },
        caches: graph.nodes.map { Cache(generation: $0.generation) } + extra,
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
      var cursor: Int? = node
      while let current = cursor {
        let isPending = inBody && current == graph.writer?.node
        let frame = isPending ? Frame(node: current, isNew: true) : state.frames[current]
        for (key, stamp) in writes(of: current, isWritten: state.isWritten || isPending)
        where view.found[key] == nil {
          view.found[key] = Found(stamp: stamp, depth: depths[current], home: frame)
        }
        cursor = graph.nodes[current].parent
      }
      return view
    }

    /// The cache of `frame`: its node's, shared by every frame of the node.
    func cache(of frame: Frame) -> Int {
      variant == .cachesPerFrame && frame.isNew ? graph.nodes.count : frame.node
    }

    /// The node whose cache `cache` is.
    func node(of cache: Int) -> Int {
      cache < graph.nodes.count ? cache : graph.writer?.node ?? 0
    }

    /// The generation `frame`'s header records.
    func generation(of frame: Frame, in state: State) -> Int {
      frame.isNew ? state.newFrameGeneration : 0
    }

    func isCurrent(_ cell: Cell, for view: View) -> Bool {
      guard let inputs = cell.inputs else { return false }
      return inputs.allSatisfy { view.stamp(of: $0.key) == $0.value }
    }

    func reads(_ cell: Cell, anyOf writes: Set<Stamped>) -> Bool {
      cell.inputs?.contains { writes.contains(Stamped(key: $0.key, stamp: $0.value)) } ?? false
    }

    /// A cell current for `view` in the cache of a learned anchor's home, or for the process.
    func currentCell(of derivation: Int, for view: View, in state: State) -> Int? {
      for anchor in state.learned[derivation].anchors {
        guard let home = view.found[anchor]?.home,
          let id = state.caches[cache(of: home)].cells[derivation],
          isCurrent(state.cells[id], for: view)
        else { continue }
        return id
      }
      guard let id = state.processCells[derivation], isCurrent(state.cells[id], for: view)
      else { return nil }
      return id
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
        if reader == bodyReader, let writer = graph.writer {
          // The update starts: its pending frame records its cache's generation.
          moved.newFrameGeneration =
            state.caches[cache(of: Frame(node: writer.node, isNew: true))].generation
        }
        moved.readers[reader].step = .start
      case .start:
        // The cached read: the learned anchors' caches, with no `claims` lock.
        moved.readers[reader].step =
          currentCell(of: derivation, for: values, in: state).map { .done($0) } ?? .locked
      case .locked:
        moved.readers[reader].step = lookOrClaim(derivation, for: values, in: &moved)
      case .building(let id):
        moved.readers[reader].step = build(id, for: values, in: &moved)
      case .checking(let id, let generation):
        // The slow path: the node's values now, with no lock held.
        let home = state.cells[id].home ?? Frame(node: 0)
        let now = view(at: node(of: cache(of: home)), in: state, inBody: false)
        let keeping =
          variant == .keepsWithoutRecheckingTheGeneration
          ? Keeping.always : .ifGeneration(generation)
        moved.readers[reader].step = .keeping(
          id, isCurrent(state.cells[id], for: now) ? keeping : .never)
      case .keeping(let id, let keeping):
        moved.readers[reader].step = finish(id, keeping: keeping, in: &moved)
      case .waiting(let id):
        guard let result = state.cells[id].result else { return nil }
        moved.readers[reader].step =
          isCurrent(state.cells[result], for: values) ? .done(result) : .locked
      case .done:
        return nil
      }
      return moved
    }

    /// `claimOrFind`: under `claims`, a current cell; else a build under way whose claim the
    /// values match; else a new build.
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
      return .building(state.cells.count - 1)
    }

    /// The build, with no lock, and the first step after it: with no anchor, or with a pending
    /// home, the finish under `claims`; else, under the home's cache's lock, its generation,
    /// which picks the fast path (the generation the home recorded) or the slow one.
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
      state.cells[id].anchor = nearest?.key
      state.cells[id].home = nearest?.found.home
      guard let home = nearest?.found.home else { return finish(id, keeping: .always, in: &state) }
      if variant == .keepsWithoutChecking { return .keeping(id, .always) }
      let recorded = generation(of: home, in: state)
      // Pending: an update's body reads from the frame it writes.
      if home.isNew, !state.isWritten {
        return finish(id, keeping: .ifGeneration(recorded), in: &state)
      }
      let generation = state.caches[cache(of: home)].generation
      if generation == recorded { return .keeping(id, .ifGeneration(recorded)) }
      if variant == .keepsOnlyWhileTheGenerationHolds { return .keeping(id, .never) }
      return .checking(id, generation: generation)
    }

    /// The finish under `claims` (then the cache's lock, or the process cell's): if the
    /// generation moved, back to the slow path's check, still claimed; else keep the cell as
    /// `keeping` says, or hand out the one kept there first for the same inputs; unclaim; learn;
    /// finish.
    func finish(_ id: Int, keeping: Keeping, in state: inout State) -> Step {
      let cell = state.cells[id]
      // A write reached the node since the generation was read: the build stays claimed and
      // checks the node's values again, unless it read from a pending frame, which the node's
      // values do not hold.
      if let home = cell.home, !home.isNew || state.isWritten,
        case .ifGeneration(let generation) = keeping,
        state.caches[cache(of: home)].generation != generation
      {
        return .checking(id, generation: state.caches[cache(of: home)].generation)
      }
      let derivation = cell.derivation
      state.underWay[derivation].removeAll { $0 == id }
      for key in graph.derivations[derivation].reads
      where !state.learned[derivation].keys.contains(key) {
        state.learned[derivation].keys.append(key)
      }
      if let key = cell.anchor, !state.learned[derivation].anchors.contains(key) {
        state.learned[derivation].anchors.append(key)
      }
      var result = id
      if let home = cell.home {
        let cache = cache(of: home)
        let keeps =
          switch keeping {
          case .never: false
          case .always: true
          case .ifGeneration(let generation): state.caches[cache].generation == generation
          }
        if keeps {
          // A build claimed before this one learned keys it did not know may have kept a
          // value for these inputs first.
          if let first = state.caches[cache].cells[derivation],
            state.cells[first].inputs == cell.inputs
          {
            result = first
          } else {
            state.caches[cache].cells[derivation] = id
          }
        }
      } else if let first = state.processCells[derivation],
        state.cells[first].inputs == cell.inputs
      {
        result = first
      } else {
        state.processCells[derivation] = id
      }
      state.cells[id].result = result
      return .done(result)
    }

    /// The write, if the writer can make it, in one step under the node locks: the written
    /// node's new own frame; then, for it and every descendant with an own frame, under its
    /// cache's lock, the eviction of every cell built from the write it replaced, and the bump
    /// of the generation; the new frame records its cache's.
    func write(in state: State) -> State? {
      guard let writer = graph.writer, let replaced, !state.isWritten else { return nil }
      if let bodyReader {
        // The update writes once its body has read.
        guard case .done = state.readers[bodyReader].step else { return nil }
      }
      var moved = state
      let evicted =
        variant == .evictsTheDefault
        ? Stamped(key: writer.key, stamp: graph.nodes[writer.node].writes[writer.key] ?? 0)
        : replaced
      let new = Frame(node: writer.node, isNew: true)
      moved.isWritten = true
      moved.frames[writer.node] = new
      for node in subtree where !writes(of: node, isWritten: true).isEmpty {
        let cache = cache(of: moved.frames[node])
        if node == writer.node || variant != .evictsAtTheWrittenNodeOnly {
          moved.caches[cache].cells = moved.caches[cache].cells.filter {
            !reads(moved.cells[$0.value], anyOf: [evicted])
          }
        }
        moved.caches[cache].generation += 1
      }
      moved.newFrameGeneration = moved.caches[cache(of: new)].generation
      return moved
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
          for (derivation, id) in state.caches[cache(of: state.frames[node])].cells
          where reads(state.cells[id], anyOf: [replaced]) {
            problems.append(
              "the cache of \(graph.nodes[node].name) keeps a value of "
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
        guard case .write = phase else {
          guard let reader = phase.reader else { continue }
          repeat {
            guard let moved = step(reader, in: state) else {
              return (state, "\(name(ofReader: reader)) cannot step")
            }
            state = moved
          } while !phase.isOver(at: state.readers[reader].step)
          continue
        }
        guard let moved = write(in: state) else { return (state, "the writer cannot write") }
        state = moved
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
      "\(graph.nodes[frame.node].name)'s \(frame.isNew ? "new " : "")frame"
    }

    func describe(cache: Int) -> String {
      cache < graph.nodes.count
        ? "\(graph.nodes[cache].name)'s cache"
        : "the cache of \(graph.nodes[node(of: cache)].name)'s new frame"
    }

    /// The interleaving `path` (the thread that steps, step by step) from `start`, told step by
    /// step.
    func trace(_ path: [Int], from start: State) -> [String] {
      var state = start
      var lines = graph.prefix.map { phase in
        switch phase {
        case .take(let reader): "first, alone, \(name(ofReader: reader)) takes its values"
        case .claim(let reader): "first, alone, \(name(ofReader: reader)) reads until it claims"
        case .check(let reader):
          "first, alone, \(name(ofReader: reader)) reads until it is to keep"
        case .run(let reader): "first, alone, \(name(ofReader: reader)) reads to the end"
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

    /// The write, and what it evicted and bumped.
    func describeWrite(from state: State, to moved: State) -> String {
      guard let writer = graph.writer else { return "" }
      let caches = state.caches.indices.filter {
        state.caches[$0].generation != moved.caches[$0].generation
      }
      let evicted = caches.flatMap { cache in
        state.caches[cache].cells.filter { moved.caches[cache].cells[$0.key] == nil }.map {
          "build \($0.value) from \(describe(cache: cache))"
        }
      }
      let bumped = caches.map { "\(describe(cache: $0)) to \(moved.caches[$0].generation)" }
      return "the writer sets \(writer.key) \(writer.stamp) at \(graph.nodes[writer.node].name)"
        + (evicted.isEmpty ? "" : ", evicts \(evicted.joined(separator: ", "))")
        + ", bumps \(bumped.joined(separator: ", "))"
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
      case (.building(let id), _):
        let cell = moved.cells[id]
        let built =
          "\(who) runs build \(id), from \(describe(cell.inputs ?? [:], of: derivation))"
        guard let home = cell.home else {
          return built + ", and keeps build \(moved.cells[id].result ?? id) for the process"
        }
        let cache = describe(cache: self.cache(of: home))
        let at =
          "\(built), anchored in \(describe(home)), and reads \(cache)'s generation "
          + "\(state.caches[self.cache(of: home)].generation)"
        switch after.step {
        case .checking: return at + ": the slow path"
        case .keeping(_, .ifGeneration): return at + ": the fast path"
        case .done(let result):
          let kept = moved.caches[self.cache(of: home)].cells[derivation] == result
          return "\(built), anchored in the pending \(describe(home)), and "
            + (result != id
              ? "gets build \(result), kept in \(cache) first"
              : kept ? "keeps it in \(cache)" : "keeps it nowhere")
        default: return at
        }
      case (.checking(let id, _), .keeping(_, let keeping)):
        let node = graph.nodes[node(of: cache(of: moved.cells[id].home ?? Frame(node: 0)))].name
        return "\(who) takes \(node)'s values: build \(id) is "
          + (keeping == .never ? "not current there" : "current there")
      case (.keeping(let id, _), .done(let result)):
        guard let home = moved.cells[id].home else { return "\(who) finishes build \(id)" }
        let cache = describe(cache: self.cache(of: home))
        if result != id { return "\(who) gets build \(result), kept in \(cache) first" }
        return moved.caches[self.cache(of: home)].cells[derivation] == id
          ? "\(who) keeps build \(id) in \(cache)" : "\(who) keeps build \(id) nowhere"
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
