extension AnyDerived {
  /// The kept cell `values` can use, found with no lock but its table's, without waiting or
  /// building: the read of a derived value built before. `nil` sends the read to
  /// ``cell(in:name:)``.
  @usableFromInline
  func cachedCell(in values: EnvironmentValues) -> DerivedCell? {
    switch lifetime {
    case .newOnEveryRead:
      return nil
    case .onePerProcess:
      guard let cell = processCells.cell(for: key), cell.isReady, !cell.isDiscarded,
        cell.hasInputs(of: values) || cell.reportedMismatch.load(ordering: .relaxed)
      else { return nil }
      return cell
    case .onePerInputs:
      // Unretained: the anchor holds its table, and `values` the anchor, for the whole read.
      let table: Unmanaged<AnyObject>?
      if let anchor = learnedKeys._withUnsafeGuaranteedRef({
        Self.anchor(in: values, keys: $0.keys)
      }) {
        table = anchor._withUnsafeGuaranteedRef { $0.attachment.loadUnretained() }
      } else {
        table = .passUnretained(processCells)
      }
      guard
        let cell = table?._withUnsafeGuaranteedRef({
          unsafeDowncast($0, to: DerivedCellTable.self).cell(for: key)
        }), cell.isReady, cell.isCurrent(in: values)
      else { return nil }
      return cell
    }
  }

  /// The cell of the value as `values` sees it: a kept one built from the same inputs, one
  /// built now, or, for a value new on every read or a read that gets the fallback, one made for
  /// this read alone. See ``AnyDerived`` for how a set of inputs is built once.
  @usableFromInline
  func cell(in values: EnvironmentValues, name: SlotName) -> DerivedCell {
    let innermost = BuildRecorder.innermost
    if let cycle = cycle(from: innermost) {
      return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
    }
    if lifetime == .newOnEveryRead {
      EnvironmentValues.uncachedReads.add(1, ordering: .relaxed)
      let cell = makeCell(self, name)
      let (error, recorded) = build(into: cell, in: values, name: name, parent: innermost)
      if let error {
        return fail(in: values, name: name, because: thrownMessage(error, name: name))
      }
      if let recorder = values.recorder {
        record(recorded.reads, cell: nil, in: values, by: recorder)
        (recorder as? BuildRecorder)?.recordCells(recorded.cells)
        if recorded.readFallback { (recorder as? BuildRecorder)?.recordFallback() }
      }
      return cell
    }
    while true {
      switch claimOrFind(in: values, name: name) {
      case .ready(let cell):
        return deliver(cell, in: values)
      case .underWay(let cell):
        if let cycle = cell.waitUntilBuilt() {
          return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
        }
        let built = cell.replacement ?? cell
        if built.isReady, lifetime == .onePerProcess || built.isCurrent(in: values) {
          return deliver(built, in: values)
        }
      // Failed, or built from other inputs than these: look again.
      case .claimed(let cell):
        return buildAndKeep(cell, in: values, name: name, parent: innermost)
      }
    }
  }

  private enum Claim {
    case ready(DerivedCell)
    case underWay(DerivedCell)
    case claimed(DerivedCell)
  }

  /// Under `claims`: a ready cell for `values`, wherever one can be kept; else a build under way
  /// that claimed what `values` sees; else a new build, claimed for this thread.
  private func claimOrFind(in values: EnvironmentValues, name: SlotName) -> Claim {
    claims.withLock { underWay in
      let learned = learnedKeys.takeUnretainedValue()
      if let cell = readyCell(in: processCells, for: values) { return .ready(cell) }
      for key in learned.keys {
        if let slot = values.unretainedSlot(for: key), let table = Self.existingTable(of: slot),
          let cell = readyCell(in: table, for: values)
        {
          return .ready(cell)
        }
      }
      if let cell = underWay.first(where: { lifetime == .onePerProcess || $0.claimMatches(values) })
      {
        return .underWay(cell)
      }
      let cell = makeCell(self, name)
      cell.claim(keys: learned, in: values)
      underWay.append(cell)
      return .claimed(cell)
    }
  }

  /// The cell kept in `table` that `values` can use, if any.
  private func readyCell(in table: DerivedCellTable, for values: EnvironmentValues) -> DerivedCell?
  {
    guard let cell = table.cell(for: key), cell.isReady else { return nil }
    if lifetime == .onePerProcess { return cell.isDiscarded ? nil : cell }
    return cell.isCurrent(in: values) ? cell : nil
  }

  /// Builds the value into a cell this thread claimed, keeps it where readers that see the same
  /// inputs look for it, and wakes the readers waiting for it.
  private func buildAndKeep(
    _ cell: DerivedCell, in values: EnvironmentValues, name: SlotName, parent: BuildRecorder?
  ) -> DerivedCell {
    var (error, recorded) = build(into: cell, in: values, name: name, parent: parent)
    var replaced: DerivedCell?
    let kept = claims.withLock { underWay -> DerivedCell in
      // By index: `remove(at:)` keeps the array's storage for the next claim.
      if let index = underWay.firstIndex(where: { $0 === cell }) { underWay.remove(at: index) }
      let kept =
        error == nil ? keep(cell, built: &recorded, in: values, replacing: &replaced) : cell
      // Under `claims`, and after everything the cell records: a reader that looks now finds it
      // finished, not kept and still building.
      cell.finish(error == nil ? .ready : .failed)
      return kept
    }
    cell.wakeWaiters()
    // Released with no lock held: the cell kept before may hold the last reference to its value.
    replaced = nil
    if let error { return fail(in: values, name: name, because: thrownMessage(error, name: name)) }
    return deliver(kept, in: values)
  }

  /// Records what a build read in its cell, and keeps the cell with its anchor; returns the
  /// cell its readers get. Called holding `claims`.
  private func keep(
    _ cell: DerivedCell, built recorded: inout BuildRecorder.Recorded, in values: EnvironmentValues,
    replacing replaced: inout DerivedCell?
  ) -> DerivedCell {
    // Moved out, so that the cell keeps the one array the recorder filled, not a copy.
    let reads = recorded.reads
    recorded.reads = []
    learn(reads)
    let anchor =
      lifetime == .onePerInputs ? Self.anchor(in: values, keys: reads.lazy.map(\.identifier)) : nil
    cell.record(reads, cells: recorded.cells, anchor: anchor?.takeUnretainedValue())
    // Built on a fallback: its waiters get it, and the next read builds again.
    if recorded.readFallback {
      cell.isProvisional = true
      return cell
    }
    let table = anchor.map(Self.table(of:)) ?? processCells
    // A build claimed before this one learned keys it did not know may have kept a value for
    // these inputs first: hand that one out, so that one set of inputs has one live value.
    if let first = table.cell(for: key), first.isReady, first.isCurrent(in: values) {
      cell.replacement = first
      return first
    }
    replaced = table.keep(cell)
    return cell
  }

  /// A kept value, recorded as read by whatever build or probe is reading.
  private func deliver(_ cell: DerivedCell, in values: EnvironmentValues) -> DerivedCell {
    if let recorder = values.recorder {
      record(cell.inputs, cell: cell, in: values, by: recorder)
      if let build = recorder as? BuildRecorder {
        build.recordCells(cell.dependencies)
        if cell.isProvisional { build.recordFallback() }
      }
    }
    if lifetime == .onePerProcess, !cell.hasInputs(of: values),
      !cell.reportedMismatch.exchange(true, ordering: .relaxed)
    {
      report(mismatchMessage(cell, in: values), in: values)
    }
    return cell
  }

  /// Records what a derived value read while it was built as reads of the code that read it:
  /// each input, looked up in `values`, and the kept cell itself.
  private func record(
    _ inputs: [ReadRecorder.Read], cell: DerivedCell?, in values: EnvironmentValues,
    by recorder: ReadRecorder
  ) {
    for input in inputs {
      recorder.record(
        ReadRecorder.Read(
          identifier: input.identifier, name: input.name,
          slot: values.slot(for: input.identifier), isInput: true, detail: input.detail))
    }
    if let cell, let build = recorder as? BuildRecorder { build.recordCells([cell]) }
    if let cell, !(recorder is BuildRecorder) { recorder.attach(cell) }
  }

  /// Runs the build into `cell`, with a recorder, on this thread, as the innermost build;
  /// `parent` is the build it is part of, the innermost until now.
  private func build(
    into cell: DerivedCell, in values: EnvironmentValues, name: SlotName,
    parent: BuildRecorder?
  ) -> (
    error: (any Error)?,
    recorded: (reads: [ReadRecorder.Read], cells: [DerivedCell], readFallback: Bool)
  ) {
    let recorder = BuildRecorder(
      frame: DerivationFrame(derivation: self, name: name, parent: parent, values: values))
    var observed = values
    observed.recorder = recorder
    LockAudit.assertNoneHeld("a derived value's build runs")
    let error = recorder.run { () -> (any Error)? in
      do {
        try fill(cell, observed)
        return nil
      } catch {
        return error
      }
    }
    return (error, recorder.takeRecorded())
  }

  // MARK: Failures

  /// The builds on this thread, outermost first, from the one that is this value, if one is;
  /// `innermost` is the innermost build on this thread.
  private func cycle(from innermost: BuildRecorder?) -> [DerivationFrame]? {
    guard let chain = innermost?.frame.chain,
      let start = chain.firstIndex(where: { $0.derivation === self })
    else { return nil }
    return chain[...start].reversed()
  }

  private func cycleMessage(_ frames: [DerivationFrame], closedBy name: SlotName) -> String {
    let names = frames.map(\.name.description) + [name.description]
    let places = frames.map { "\($0.name) at \($0.derivation.declaration)" }
    return """
      \(names.joined(separator: " → ")): building \(name) reads \(name) again, so it can \
      never finish. Pass one of them what it needs instead of reading the other. Declared: \
      \(places.joined(separator: ", ")).
      """
  }

  private func cycleMessage(_ cells: [DerivedCell], closedBy name: SlotName) -> String {
    // The last cell is one this thread builds, which closes the cycle.
    let mine = BuildRecorder.innermost?.frame.chain.reversed().map(\.name.description) ?? []
    let theirs = cells.dropLast().map { "\($0.name) (built on another thread)" }
    let names = mine + theirs + [cells.last?.name.description ?? name.description]
    let places = cells.map { "\($0.name) at \($0.derivation.declaration)" }
    return """
      \(names.joined(separator: " → ")): the threads building these values would wait for \
      each other forever. Pass one of them what it needs instead of reading the other. \
      Declared: \(places.joined(separator: ", ")).
      """
  }

  private func thrownMessage(_ error: any Error, name: SlotName) -> String {
    "Building \(name) threw \(error). Fix what it reads, or catch the error in its build."
  }

  private func mismatchMessage(_ cell: DerivedCell, in values: EnvironmentValues) -> String {
    let differing = cell.inputs.filter { !$0.isSeen(in: values) }
    let seen = differing.map { input in
      let origin = values.slot(for: input.identifier)?.origin
      return "\(input.name) (\(origin.map { "set on \($0)" } ?? "the default"))"
    }
    return """
      \(cell.name) is one value per process, built where it was first read; this read sees \
      another \(seen.joined(separator: ", ")), which that value does not follow. Declare it \
      with .onePerInputs to build one for each set of inputs.
      """
  }

  /// Reports a failed read and returns a cell holding the fallback; with no fallback, stops
  /// the program.
  private func fail(in values: EnvironmentValues, name: SlotName, because message: String)
    -> DerivedCell
  {
    guard fillWithFallback != nil else {
      report(message + " \(name) has no fallback, so the program stops here.", in: values)
      preconditionFailure(message)
    }
    report(message + " This read gets \(name)'s fallback.", in: values)
    if let innermost = BuildRecorder.innermost, innermost !== values.recorder {
      innermost.recordFallback()
    }
    return fallbackCell(in: values, name: name)
  }

  /// A cell holding the fallback, for one read, recorded as such.
  private func fallbackCell(in values: EnvironmentValues, name: SlotName) -> DerivedCell {
    let cell = makeCell(self, name)
    fillWithFallback?(cell)
    (values.recorder as? BuildRecorder)?.recordFallback()
    return cell
  }

  private func report(_ message: String, in values: EnvironmentValues) {
    values.unrecorded.issueReporter.report(EnvironmentIssue(message, at: declaration))
  }
}
