extension Derivation {
  /// The kept cell `values` can use, found without waiting or building: the read of a derived
  /// value that was built before. `nil` sends the read to ``cell(in:name:)``.
  @usableFromInline
  func keptCell(in values: EnvironmentValues) -> DerivedCell? {
    switch lifetime {
    case .newOnEveryRead:
      return nil
    case .onePerProcess:
      guard let cell = cells.cell(for: key), cell.isReady, !cell.isDiscarded,
        cell.hasInputs(of: values) || cell.reportedMismatch.load(ordering: .relaxed)
      else { return nil }
      return cell
    case .onePerInputs:
      // Unretained: the anchor holds its table, and `values` the anchor, for the whole read.
      let table: Unmanaged<DerivedCellTable>?
      if let anchor = anchor(in: values) {
        table = anchor._withUnsafeGuaranteedRef { $0.derivedCells.loadUnretained() }
      } else {
        table = .passUnretained(cells)
      }
      guard let cell = table?._withUnsafeGuaranteedRef({ $0.cell(for: key) }), cell.isReady,
        cell.isCurrent(in: values)
      else { return nil }
      return cell
    }
  }

  /// The cell of the value as `values` sees it: a kept one built from the same inputs, one
  /// built now, or, for a value new on every read or a read that gets the fallback, one made for
  /// this read alone.
  ///
  /// The build runs with no lock held. A reader that finds the value being built on another
  /// thread waits for it, as a `static let`'s first readers do, so one set of inputs is built
  /// once, unless waiting would close a cycle.
  @usableFromInline
  func cell(in values: EnvironmentValues, name: SlotName) -> DerivedCell {
    let innermost = Derivation.innermost
    if let cycle = cycle(from: innermost) {
      return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
    }
    if lifetime == .newOnEveryRead {
      Derivation.freshReads.add(1, ordering: .relaxed)
      let cell = makeCell(self, name)
      let (error, recorded) = build(into: cell, in: values, name: name, parent: innermost)
      if let recorder = values.recorder {
        recorder.recordInputs(recorded.reads, cell: nil, in: values)
        recorder.recordCells(recorded.cells)
        if recorded.readFallback { recorder.recordFallback() }
      }
      guard let error else { return cell }
      return fail(in: values, name: name, because: thrownMessage(error, name: name))
    }
    var movedFrom: DerivedCellTable?
    while true {
      let table = self.table(in: values)
      switch table.claim(self, in: values, overMoved: table === movedFrom, making: name) {
      case .moved:
        movedFrom = table
      case .ready(let cell):
        return deliver(cell, in: values)
      case .building(let cell):
        if let cycle = cell.waitUntilBuilt() {
          return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
        }
        switch cell.phase {
        case .ready where lifetime == .onePerProcess || cell.isCurrent(in: values):
          return deliver(cell, in: values)
        case .failed where fillWithFallback != nil:
          // The builder reported why; its waiters read what it read.
          return fallbackCell(in: values, name: name)
        default:
          continue
        }
      case .claimed(let cell):
        return buildAndKeep(cell, claimedIn: table, in: values, name: name, parent: innermost)
      }
    }
  }

  /// Builds the value into a cell this thread claimed, and keeps it where readers that see the
  /// same inputs will look.
  private func buildAndKeep(
    _ cell: DerivedCell, claimedIn table: DerivedCellTable, in values: EnvironmentValues,
    name: SlotName, parent: AccessRecorder?
  ) -> DerivedCell {
    let (error, built) = build(into: cell, in: values, name: name, parent: parent)
    var recorded = built
    if let error {
      table.remove(cell)
      cell.finish(.failed)
      return fail(in: values, name: name, because: thrownMessage(error, name: name))
    }
    // The table was chosen by the keys learned before: if the build read no other key, it
    // stands, and its slot is the anchor.
    let knewEveryKey = knows(recorded.reads)
    let anchor: Slot? =
      lifetime != .onePerInputs
      ? nil
      : knewEveryKey
        ? table.anchor : self.anchor(in: values, adding: recorded.reads)?.takeUnretainedValue()
    // Moved out, so that the cell keeps the one array the recorder filled, not a copy.
    let reads = recorded.reads
    recorded.reads = []
    cell.record(reads, cells: recorded.cells, anchor: anchor)
    if recorded.readFallback {
      // Built on a fallback: its waiters get it, and the next read builds again.
      cell.isProvisional = true
      table.remove(cell)
      cell.finish(.ready)
      return deliver(cell, in: values)
    }
    cell.finish(.ready)
    guard !knewEveryKey else { return deliver(cell, in: values) }
    // What the build read may put the value somewhere other than where it was looked for:
    // keep it there, then publish the keys that lead there, then let the place it was claimed
    // in forget it. In this order, a reader that looks for it finds it wherever it looks.
    let home = anchor.map { Self.table(of: .passUnretained($0)) } ?? cells
    let kept = home === table ? cell : home.keep(cell, in: values)
    learn(cell.inputs)
    if home !== table { table.forward(cell) }
    return deliver(kept, in: values)
  }

  /// A kept value, recorded as read by whatever build or probe is reading.
  private func deliver(_ cell: DerivedCell, in values: EnvironmentValues) -> DerivedCell {
    if let recorder = values.recorder {
      recorder.recordInputs(cell.inputs, cell: cell, in: values)
      recorder.recordCells(cell.dependencies)
      if cell.isProvisional { recorder.recordFallback() }
    }
    if lifetime == .onePerProcess, !cell.hasInputs(of: values),
      !cell.reportedMismatch.exchange(true, ordering: .relaxed)
    {
      report(mismatchMessage(cell, in: values), in: values)
    }
    return cell
  }

  /// Runs the build into `cell`, with a recorder, on this thread, as the innermost build;
  /// `parent` is the build it is part of, the innermost until now.
  private func build(
    into cell: DerivedCell, in values: EnvironmentValues, name: SlotName,
    parent: AccessRecorder?
  ) -> (error: (any Error)?, recorded: AccessRecorder.Recorded) {
    let recorder = AccessRecorder(
      building: DerivationFrame(derivation: self, name: name, parent: parent, values: values))
    var observed = values
    observed.recorder = recorder
    let error = Derivation.building(with: recorder) { () -> (any Error)? in
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
  private func cycle(from innermost: AccessRecorder?) -> [DerivationFrame]? {
    guard let chain = innermost?.building?.chain,
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
    let mine = Derivation.innermost?.building?.chain.reversed().map(\.name.description) ?? []
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
    let differing = cell.inputs.filter { !$0.matches(values) }
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
    if let innermost = Derivation.innermost, innermost !== values.recorder {
      innermost.recordFallback()
    }
    return fallbackCell(in: values, name: name)
  }

  /// A cell holding the fallback, for one read, recorded as such.
  private func fallbackCell(in values: EnvironmentValues, name: SlotName) -> DerivedCell {
    let cell = makeCell(self, name)
    fillWithFallback?(cell)
    values.recorder?.recordFallback()
    return cell
  }

  private func report(_ message: String, in values: EnvironmentValues) {
    values.unrecorded.issueReporter.report(EnvironmentIssue(message, at: declaration))
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
