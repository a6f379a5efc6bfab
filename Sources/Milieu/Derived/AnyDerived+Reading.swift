extension AnyDerived {
  /// The kept cell `values` can use, found with no lock but its cache's, without waiting or
  /// building: the read of a derived value built before. `nil` sends the read to
  /// ``cell(in:name:)``.
  @usableFromInline
  func cachedCell(in values: EnvironmentValues) -> DerivedCell? {
    switch lifetime {
    case .newOnEveryRead:
      return nil
    case .onePerProcess:
      guard let cell = processCell.withLock({ $0 }), !cell.isDiscarded,
        cell.hasInputs(of: values) || cell.reportedMismatch.load(ordering: .relaxed)
      else { return nil }
      return cell
    case .onePerInputs:
      return withLearned { currentCell(in: values, anchors: $0.anchors) }
    }
  }

  /// The current cell for `values` kept with one of `anchors`' frames, or for the process.
  private func currentCell(in values: EnvironmentValues, anchors: [ObjectIdentifier])
    -> DerivedCell?
  {
    for anchor in anchors {
      if let cell = currentCell(in: values, anchor: anchor) { return cell }
    }
    if let cell = processCell.withLock({ $0 }), cell.isCurrent(in: values) { return cell }
    // Values taken before a write find what it evicted with the view it retired.
    guard let base = values.base, base.isView else { return nil }
    return base.cache?.parkedCell(for: self, in: values)
  }

  /// The current cell for `values` kept in the cache of the frame of `anchor`'s write, if any.
  private func currentCell(in values: EnvironmentValues, anchor: ObjectIdentifier)
    -> DerivedCell?
  {
    guard let cell = values.cacheOfHome(of: anchor)?.cell(for: self), cell.isCurrent(in: values)
    else { return nil }
    return cell
  }

  /// The cell of the value as `values` sees it: a kept one built from the same inputs, one
  /// built now, or, for a value new on every read or a read that gets the fallback, one made for
  /// this read alone. See ``AnyDerived`` for how a set of inputs is built once.
  @usableFromInline
  func cell(in values: EnvironmentValues, name: ValueName) -> DerivedCell {
    let innermost = DerivedBuild.innermost
    if let cycle = cycle(from: innermost) {
      return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
    }
    if let innermost, innermost.depth >= DerivedBuild.depthLimit {
      return fail(in: values, name: name, because: depthMessage(innermost, closedBy: name))
    }
    if lifetime == .newOnEveryRead {
      EnvironmentReader.uncachedReads.word &+= 1
      let build = DerivedBuild(derivation: self, name: name, parent: innermost, values: values)
      switch run(build, in: values) {
      case .failure(let message):
        return fail(in: values, name: name, because: message)
      case .success(let cell):
        if let recorder = values.recorder {
          recorder.record(ReadRecorder.Read(key: key, name: name, stamp: 0, detail: self))
          for input in cell.inputs {
            var read = input
            read.isInput = true
            recorder.record(read)
          }
          recorder.attach(contentsOf: cell.dependencies)
          if cell.isProvisional { recorder.flag() }
        }
        return cell
      }
    }
    var matchesClaims = true
    while true {
      switch claimOrFind(in: values, name: name, parent: innermost, matching: matchesClaims) {
      case .ready(let cell):
        return deliver(cell, in: values, name: name)
      case .underWay(let build):
        switch build.waitUntilFinished(reading: values) {
        case .cycle(let builds):
          return fail(in: values, name: name, because: cycleMessage(builds, closedBy: name))
        case .independent:
          matchesClaims = false
        case .waited:
          if let built = build.result.load(),
            lifetime == .onePerProcess || built.isCurrent(in: values)
          {
            return deliver(built, in: values, name: name)
          }
        // Failed, or built from other inputs than these: look again.
        }
      case .claimed(let build):
        return buildAndKeep(build, in: values, name: name)
      }
    }
  }

  /// The identity of the value: its key in values and in caches.
  var key: ObjectIdentifier { ObjectIdentifier(self) }

  private enum Claim {
    case ready(DerivedCell)
    case underWay(DerivedBuild)
    case claimed(DerivedBuild)
  }

  /// Under `claims`: a current cell for `values`, wherever one can be kept; else a build under
  /// way that claimed what `values` sees (unless not `matching`); else a new build, claimed for
  /// this thread.
  private func claimOrFind(
    in values: EnvironmentValues, name: ValueName, parent: DerivedBuild?, matching: Bool
  ) -> Claim {
    claims.withLock { underWay in
      withLearned { learned in
        if lifetime == .onePerProcess {
          if let cell = processCell.withLock({ $0 }), !cell.isDiscarded { return .ready(cell) }
        } else if let cell = currentCell(in: values, anchors: learned.anchors) {
          return .ready(cell)
        }
        if matching,
          let build = underWay.first(where: {
            lifetime == .onePerProcess || $0.claimMatches(values)
          })
        {
          return .underWay(build)
        }
        let build = DerivedBuild(
          derivation: self, name: name, parent: parent, values: values, claiming: learned)
        underWay.append(build)
        return .claimed(build)
      }
    }
  }

  /// Runs a build this thread claimed, keeps its cell where readers that see the same inputs
  /// look for it, and wakes the readers waiting for it.
  private func buildAndKeep(_ build: DerivedBuild, in values: EnvironmentValues, name: ValueName)
    -> DerivedCell
  {
    let outcome = run(build, in: values)
    var placement = Placement.process
    if case .success(let cell) = outcome { placement = self.placement(of: cell, in: values) }
    var replaced: DerivedCell?
    var kept: DerivedCell?
    // A write that reaches the anchor's node before the keep sends the build back to check the
    // node's values again, still claimed; so many in a row that it gives up keeps it nowhere.
    for attempt in 0... {
      let finished = claims.withLock { underWay -> Bool in
        if case .success(let cell) = outcome {
          switch keep(cell, at: placement, in: values, replacing: &replaced) {
          case .some(let cell): kept = cell
          case .none where attempt < Self.keepAttempts:
            return false
          case .none: kept = cell
          }
        }
        // By index: `remove(at:)` keeps the array's storage for the next claim.
        if let index = underWay.firstIndex(where: { $0 === build }) { underWay.remove(at: index) }
        // Under `claims`, after the cell is kept: a reader that looks now finds it kept and the
        // build finished, not one without the other.
        build.finish(with: kept)
        return true
      }
      if finished { break }
      if case .success(let cell) = outcome, case .cache(let cache, _, _) = placement {
        placement = checked(cell, in: cache, values: values)
      }
    }
    build.wakeWaiters()
    // Released with no lock held: the cell kept before may hold the last reference to its value.
    replaced = nil
    placement = .process
    guard let kept else {
      if case .failure(let message) = outcome {
        return fail(in: values, name: name, because: message)
      }
      preconditionFailure("a build that succeeded keeps its cell")
    }
    return deliver(kept, in: values, name: name)
  }

  /// How many times a build checks its anchor node's values again, each after a write reached
  /// the node, before it gives up keeping its cell.
  private static var keepAttempts: Int { 8 }

  /// Where a built cell is kept, as a build decides it with no lock held.
  private enum Placement {
    /// For the process: built from defaults alone, or one per process.
    case process
    /// Nowhere: delivered to the readers that asked, and built again for the next.
    case nowhere
    /// In a cache, if its generation is still the one given (always for `nil`); one that
    /// `checksAgain` goes back to its node's values when it finds the generation moved.
    case cache(DerivedCache, generation: UInt64?, checksAgain: Bool)
    /// Parked, for the values taken before a write, which it was built from.
    case parked(DerivedCache)
  }

  /// Where `cell`, built from `values`, is kept: in the cache of the own frame that holds its
  /// anchor, the nearest write it read, if it is current for that frame's node.
  ///
  /// A frame a node published records its cache's generation then: while that holds, no write
  /// reached the node since, and a cell built from a snapshot that holds the frame is current
  /// for the node. Else the cell is checked against the node's values now, under the generation
  /// read before them. A frame an update's body writes, which its node does not hold yet, keeps
  /// a cell only while no write reached the node since the update started. A cache with no node
  /// yet (free-standing values', a child's closure's) keeps it as it is.
  private func placement(of cell: DerivedCell, in values: EnvironmentValues) -> Placement {
    guard lifetime == .onePerInputs, !cell.isProvisional else { return .process }
    guard let anchor = cell.anchor, let (frame, position) = values.record(for: anchor.key) else {
      return .process
    }
    let home = frame.home(at: position)
    let cache = home.cache ?? home.attachCache(DerivedCache())
    switch cache.binding {
    case .orphaned:
      return .nowhere
    case .unbound:
      return .cache(cache, generation: nil, checksAgain: false)
    case .bound(let generation):
      if !home.isFrozen || generation == home.generation {
        return .cache(cache, generation: home.generation, checksAgain: home.isFrozen)
      }
      return checked(cell, in: cache, values: values)
    }
  }

  /// `cell` kept in `cache` if it is current for the values of the cache's node now, under the
  /// generation read before them.
  ///
  /// A cell built from values taken before a write that changed what it read is parked with the
  /// view the write retired, if the values read through it, for the readers of those values.
  private func checked(
    _ cell: DerivedCell, in cache: DerivedCache, values: EnvironmentValues
  ) -> Placement {
    LockAudit.assertNoneHeld("a build checks its node's values")
    let generation = cache.withNode { node, generation in
      cell.hasInputs(of: node.values) ? generation : nil
    }
    if let generation = generation.flatMap({ $0 }) {
      return .cache(cache, generation: generation, checksAgain: true)
    }
    guard let parked = values.base?.cache, values.base?.isView == true, parked.isParking else {
      return .nowhere
    }
    return .parked(parked)
  }

  /// Keeps a built cell as `placement` says, or for the process; returns the cell its readers
  /// get: this one, or the one another build for the same inputs kept first; `nil` if a write
  /// reached the anchor's node since the placement was decided. Called holding `claims`.
  private func keep(
    _ cell: DerivedCell, at placement: Placement, in values: EnvironmentValues,
    replacing replaced: inout DerivedCell?
  ) -> DerivedCell? {
    learn(cell.inputs, anchor: cell.anchor?.key)
    // Built on a fallback: its waiters get it, and the next read builds again.
    if cell.isProvisional { return cell }
    switch placement {
    case .nowhere:
      return cell
    case .parked(let parked):
      if let first = parked.parkedCell(for: self, in: values) { return first }
      parked.park([cell])
      return cell
    case .cache(let cache, let generation, let checksAgain):
      switch cache.keep(cell, ifGeneration: generation) {
      case .kept(let old):
        replaced = old
        return cell
      case .keptFirst(let first): return first
      case .refused: return cell
      // A pending frame's cell cannot be checked again: the node does not hold that frame.
      case .moved: return checksAgain ? nil : cell
      }
    case .process:
      return processCell.withLock { kept in
        if let first = kept, !first.isDiscarded,
          lifetime == .onePerProcess || first.isCurrent(in: values)
        {
          return first
        }
        replaced = kept
        kept = cell
        return cell
      }
    }
  }

  /// A kept value, recorded as read by whatever build or probe is reading.
  private func deliver(_ cell: DerivedCell, in values: EnvironmentValues, name: ValueName)
    -> DerivedCell
  {
    if let recorder = values.recorder {
      recorder.record(ReadRecorder.Read(key: key, name: name, stamp: cell.stamp, detail: self))
      recorder.attach(cell)
      if cell.isProvisional { recorder.flag() }
    }
    if lifetime == .onePerProcess, !cell.hasInputs(of: values),
      !cell.reportedMismatch.exchange(true, ordering: .relaxed)
    {
      report(mismatchMessage(cell, in: values), in: values)
    }
    return cell
  }

  private enum Built {
    case success(DerivedCell)
    case failure(String)
  }

  /// Runs a build on this thread, as the innermost build, and makes the cell of what it built.
  private func run(_ build: DerivedBuild, in values: EnvironmentValues) -> Built {
    var observed = values
    observed.recorder = build.recorder
    LockAudit.assertNoneHeld("a derived value's build runs")
    return build.run {
      do {
        let value = try make(observed)
        let reads = build.recorder.takeReads()
        let dependencies = build.recorder.takeAttachments().compactMap { $0 as? DerivedCell }
        let anchor =
          lifetime == .onePerInputs ? Self.anchor(of: reads, dependencies, in: values) : nil
        return .success(
          DerivedCell(
            derivation: self, name: build.name, value: value, inputs: reads,
            dependencies: dependencies, anchor: anchor, isProvisional: build.recorder.isFlagged))
      } catch {
        return .failure(thrownMessage(error, name: build.name))
      }
    }
  }

  /// The write, among what a build read, whose frame keeps the value: the one written
  /// nearest the reader, by the deepest node or by free-standing values; `nil` when the build
  /// read nothing that was written.
  private static func anchor(
    of reads: [ReadRecorder.Read], _ dependencies: [DerivedCell], in values: EnvironmentValues
  ) -> Stamped? {
    var nearest: (write: Stamped, depth: UInt32)?
    for read in reads {
      var key = read.key
      if read.hasDetail, !values.hasRecord(for: read.key) {
        guard let anchor = dependencies.first(where: { $0.derivation.key == read.key })?.anchor
        else { continue }
        key = anchor.key
      }
      guard let (frame, position) = values.record(for: key) else { continue }
      let depth = frame.home(at: position).depth
      if nearest.map({ depth > $0.depth }) ?? true {
        nearest = (Stamped(key: key, stamp: frame.stamp(at: position)), depth)
      }
    }
    return nearest?.write
  }

  // MARK: Failures

  /// The builds on this thread, outermost first, from the one that is this value, if one is;
  /// `innermost` is the innermost build on this thread.
  private func cycle(from innermost: DerivedBuild?) -> [DerivedBuild]? {
    guard let innermost, innermost.chainIsBuilding(self) else { return nil }
    let chain = innermost.chain
    guard let start = chain.firstIndex(where: { $0.derivation === self }) else { return nil }
    return chain[...start].reversed()
  }

  private func cycleMessage(_ builds: [DerivedBuild], closedBy name: ValueName) -> String {
    DerivedReadFailure.note(.cycle, of: name, at: declaration)
    // A cycle across threads starts with the build this thread waits for; one on this thread,
    // with the build of this value.
    let acrossThreads = DerivedBuild.innermost.map { !$0.chain.contains { $0 === builds[0] } }
    if acrossThreads ?? true {
      let mine = DerivedBuild.innermost?.chain.reversed().map(\.name.description) ?? []
      let theirs = builds.dropLast().map { "\($0.name) (built on another thread)" }
      let names = mine + theirs + [builds.last?.name.description ?? name.description]
      let places = builds.map { "\($0.name) at \($0.derivation.declaration)" }
      return """
        \(names.joined(separator: " → ")): the threads building these values would wait for \
        each other forever. Pass one of them what it needs instead of reading the other. \
        Declared: \(places.joined(separator: ", ")).
        """
    }
    let names = builds.map(\.name.description) + [name.description]
    let places = builds.map { "\($0.name) at \($0.derivation.declaration)" }
    return """
      \(names.joined(separator: " → ")): building \(name) reads \(name) again, so it can \
      never finish. Pass one of them what it needs instead of reading the other. Declared: \
      \(places.joined(separator: ", ")).
      """
  }

  private func depthMessage(_ innermost: DerivedBuild, closedBy name: ValueName) -> String {
    DerivedReadFailure.note(.depthLimit, of: name, at: declaration)
    let names = innermost.chain.reversed().map(\.name.description) + [name.description]
    let shown =
      names.count <= 8
      ? names : names.prefix(3) + ["… \(names.count - 6) more …"] + names.suffix(3)
    return """
      \(shown.joined(separator: " → ")): \(name) is read more than \(DerivedBuild.depthLimit) \
      derived values deep. Builds nest on the stack of the thread that reads the outermost one, \
      so Milieu stops nesting here. Build the deep values from plain values, or read fewer \
      derived values through each other.
      """
  }

  private func thrownMessage(_ error: any Error, name: ValueName) -> String {
    DerivedReadFailure.note(.threw(error), of: name, at: declaration)
    return "Building \(name) threw \(error). Fix what it reads, or catch the error in its build."
  }

  private func mismatchMessage(_ cell: DerivedCell, in values: EnvironmentValues) -> String {
    let differing = cell.inputs.filter { DerivedCell.stamp(of: $0, in: values) != $0.stamp }
    let seen = differing.map { input in
      let origin = values.record(for: input.key).flatMap { $0.frame.info(at: $0.position).origin }
      return "\(input.name) (\(origin.map { "set on \($0)" } ?? "the default"))"
    }
    return """
      \(cell.name) is one value per process, built where it was first read; this read sees \
      another \(seen.joined(separator: ", ")), which that value does not follow. Declare it \
      with .onePerInputs to build one for each set of inputs.
      """
  }

  /// Reports a failed read and returns a cell holding the fallback, for this read alone; with
  /// no fallback, stops the program.
  private func fail(in values: EnvironmentValues, name: ValueName, because message: String)
    -> DerivedCell
  {
    guard let value = fallback?.copy() else {
      report(message + " \(name) has no fallback, so the program stops here.", in: values)
      preconditionFailure(message)
    }
    report(message + " This read gets \(name)'s fallback.", in: values)
    if let innermost = DerivedBuild.innermost, innermost.recorder !== values.recorder {
      innermost.recorder.flag()
    }
    values.recorder?.flag()
    return DerivedCell(derivation: self, name: name, value: value, isProvisional: true)
  }

  private func report(_ message: String, in values: EnvironmentValues) {
    values.unrecorded.issueReporter.report(EnvironmentIssue(message, at: declaration))
  }
}
