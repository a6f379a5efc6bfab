extension EnvironmentValues.Derived {
  /// The value as `values` sees it: a kept one built from the same inputs, or one built now.
  ///
  /// The build runs with no lock held. A reader that finds the value being built on another
  /// thread waits for it, as a `static let`'s first readers do, so one set of inputs is built
  /// once, unless waiting would close a cycle.
  func value(in values: EnvironmentValues, name: SlotName) -> Value {
    if let cycle = cycleOnThisThread() {
      return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
    }
    if derivation.lifetime == .newOnEveryRead {
      Derivation.freshReads.add(1, ordering: .relaxed)
      let build = self.build(in: values, name: name)
      values.recorder?.recordInputs(build.inputs.map(DerivedCell.Input.init), cell: nil, in: values)
      values.recorder?.recordCells(build.cells)
      if build.readFallback { values.recorder?.recordFallback() }
      switch build.outcome {
      case .success(let value):
        return value
      case .failure(let error):
        return fail(in: values, name: name, because: thrownMessage(error, name: name))
      }
    }
    var movedFrom: DerivedCellTable?
    while true {
      let table = derivation.table(in: values)
      let claim = table.claim(derivation, in: values, overMoved: table === movedFrom) {
        TypedDerivedCell<Value>(derivation: derivation, name: name)
      }
      switch claim {
      case .moved:
        movedFrom = table
        continue
      case .ready(let cell):
        return deliver(cell, in: values)
      case .building(let cell):
        if let cycle = cell.waitUntilBuilt() {
          return fail(in: values, name: name, because: cycleMessage(cycle, closedBy: name))
        }
        switch cell.phase {
        case .ready where derivation.lifetime == .onePerProcess || cell.isCurrent(in: values):
          return deliver(cell, in: values)
        case .failed:
          // The builder reported why; its waiters read what it read.
          guard let fallback else { continue }
          values.recorder?.recordFallback()
          return fallback
        default:
          continue
        }
      case .claimed(let cell):
        return buildAndKeep(cell, claimedIn: table, in: values, name: name)
      }
    }
  }

  /// Builds the value into a cell this thread claimed, and keeps it where readers that see the
  /// same inputs will look.
  private func buildAndKeep(
    _ cell: DerivedCell, claimedIn table: DerivedCellTable, in values: EnvironmentValues,
    name: SlotName
  ) -> Value {
    let build = self.build(in: values, name: name)
    switch build.outcome {
    case .success(let value):
      derivation.learn(build.inputs.map(\.identifier))
      let anchor = derivation.lifetime == .onePerInputs ? derivation.anchor(in: values) : nil
      unsafeDowncast(cell, to: TypedDerivedCell<Value>.self).value = value
      cell.record(build.inputs, cells: build.cells, anchor: anchor?.takeUnretainedValue())
      if build.readFallback {
        // Built on a fallback: its waiters get it, and the next read builds again.
        cell.isProvisional = true
        table.remove(cell)
        cell.finish(.ready)
        return deliver(cell, in: values)
      }
      cell.finish(.ready)
      // What the build read may put the value somewhere other than where it was looked for:
      // keep it there, and let the place it was claimed in forget it.
      let home = derivation.table(in: values)
      guard home !== table else { return deliver(cell, in: values) }
      let kept = home.keep(cell, in: values)
      table.forward(cell)
      return deliver(kept, in: values)
    case .failure(let error):
      table.remove(cell)
      cell.finish(.failed)
      return fail(in: values, name: name, because: thrownMessage(error, name: name))
    }
  }

  /// A kept value, recorded as read by whatever build or probe is reading.
  private func deliver(_ cell: DerivedCell, in values: EnvironmentValues) -> Value {
    if let recorder = values.recorder {
      recorder.recordInputs(cell.inputs, cell: cell, in: values)
      recorder.recordCells(cell.dependencies)
      if cell.isProvisional { recorder.recordFallback() }
    }
    if derivation.lifetime == .onePerProcess, !cell.hasInputs(of: values),
      !cell.reportedMismatch.exchange(true, ordering: .relaxed)
    {
      report(mismatchMessage(cell, in: values), in: values)
    }
    // A cell is filled before it is marked ready, and delivered only once it is.
    guard let value = unsafeDowncast(cell, to: TypedDerivedCell<Value>.self).value else {
      preconditionFailure("a derived value was delivered before it was built")
    }
    return value
  }

  /// Runs the build with a recorder, on this thread, as the innermost build.
  private func build(in values: EnvironmentValues, name: SlotName) -> (
    outcome: Result<Value, any Error>, inputs: [AccessRecorder.Read], cells: [DerivedCell],
    readFallback: Bool
  ) {
    let frame = DerivationFrame(
      derivation: derivation, name: name, parent: Derivation.innermost,
      reporter: values.unrecorded.issueReporter)
    let recorder = AccessRecorder(building: frame)
    var observed = values
    observed.recorder = recorder
    let outcome = Derivation.building(with: recorder) {
      Result { () throws -> Value in try build(observed) }
    }
    let recorded = recorder.recorded
    return (outcome, recorded.reads, recorded.cells, recorded.readFallback)
  }

  // MARK: Failures

  /// The builds on this thread, outermost first, from the one that is this value, if one is.
  private func cycleOnThisThread() -> [DerivationFrame]? {
    guard let chain = Derivation.innermost?.building?.chain,
      let start = chain.firstIndex(where: { $0.derivation === derivation })
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
    let differing = cell.inputs.filter { input in
      values.unretainedSlot(for: input.key).map { ObjectIdentifier($0.takeUnretainedValue()) }
        != input.slot
    }
    let seen = differing.map { input in
      let origin = values.slot(for: input.key)?.origin
      return "\(input.name) (\(origin.map { "set on \($0)" } ?? "the default"))"
    }
    return """
      \(cell.name) is one value per process, built where it was first read; this read sees \
      another \(seen.joined(separator: ", ")), which that value does not follow. Declare it \
      with .onePerInputs to build one for each set of inputs.
      """
  }

  /// Reports a failed read and returns the fallback; with no fallback, stops the program.
  private func fail(in values: EnvironmentValues, name: SlotName, because message: String)
    -> Value
  {
    guard let fallback else {
      report(message + " \(name) has no fallback, so the program stops here.", in: values)
      preconditionFailure(message)
    }
    report(message + " This read gets \(name)'s fallback.", in: values)
    values.recorder?.recordFallback()
    if let innermost = Derivation.innermost, innermost !== values.recorder {
      innermost.recordFallback()
    }
    return fallback
  }

  private func report(_ message: String, in values: EnvironmentValues) {
    values.unrecorded.issueReporter.report(
      EnvironmentIssue(message, at: derivation.declaration))
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
