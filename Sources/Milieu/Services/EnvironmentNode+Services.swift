extension EnvironmentNode {
  /// Starts the services that the named ones lead to, in the graph's order, and returns them
  /// running.
  ///
  /// Milieu reads each named service in this node, building what is not built yet, and follows
  /// what each build read: every value on the way whose type is a ``LifecycleService`` is
  /// started once, after everything it reads that has a lifecycle; services that read nothing
  /// of each other start at the same time. A service that other nodes' running services use
  /// already is not started again: it is read, and counted, and it stops once the last node
  /// that uses it stops, after everything that reads it, whichever node started it. So a
  /// subtree that overrides a value (a tenant with a database of its own) starts and stops the
  /// services built for it, and shares the others with the node above it in any order.
  ///
  /// ```swift
  /// let running = try await app.startServices([\.notesService, \.metricsExporter])
  /// // database, then notesService and metricsExporter at the same time
  /// ```
  ///
  /// Name the services the program runs, the way a `ServiceGroup` is given its list: a
  /// value's lifecycle is known only once it is read. A value you set yourself records no
  /// reads, so it starts with nothing before it; a value read at its key's default is found
  /// only if you name it. A service is one service wherever it is read: a class instance by
  /// its identity, any other value by the write or build it came from.
  ///
  /// If a start throws, nothing more is started, the starts under way are cancelled, and what
  /// had started is stopped in reverse; so is it when the calling task is cancelled (the
  /// program was told to stop while it started). Each start that throws an error of its own is
  /// reported with that error, a start cancelled meanwhile among them. Nothing is started when reading a service
  /// reports an issue, since what it read may be a fallback that no later read gets.
  ///
  /// - Parameters:
  ///   - services: The services the program runs, as key paths into the environment.
  ///   - stopTimeout: How long each service's stop may take before it is cancelled and
  ///     reported: a positive duration.
  ///   - clock: The clock the stop timeout runs on; a test passes one it moves.
  ///   - fileID: The call site, for diagnostics; leave the default.
  ///   - filePath: The call site's path; leave the default.
  ///   - line: The call site's line; leave the default.
  ///   - column: The call site's column; leave the default.
  /// - Returns: The running services; keep them, and call ``RunningServices/stop()`` to stop
  ///   them.
  /// - Throws: ``ServiceError``, naming each service that failed, with the path that leads to
  ///   it, and each that then failed to stop.
  public func startServices(
    _ services: [PartialKeyPath<EnvironmentValues> & Sendable],
    stopTimeout: Duration = .seconds(30), clock: any Clock<Duration> = ContinuousClock(),
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async throws(ServiceError) -> RunningServices {
    try await startServices(
      services, stopTimeout: stopTimeout, clock: clock,
      at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      requiringFakes: [])
  }

  /// Starts the services as
  /// ``startServices(_:stopTimeout:clock:fileID:filePath:line:column:)`` does, and fails for
  /// each fake numbered in `fakes` that applies to none of them: how `withRunningServices` says
  /// that a fake it was given would apply to nothing.
  package func startServices(
    _ services: [PartialKeyPath<EnvironmentValues> & Sendable], stopTimeout: Duration,
    clock: any Clock<Duration>, at callSite: CallSite, requiringFakes fakes: Set<UInt64>
  ) async throws(ServiceError) -> RunningServices {
    let invalid = ServiceFailure.checking(stopTimeout: stopTimeout)
    guard invalid.isEmpty else { throw ServiceError(failures: invalid) }
    let plan = servicePlan(services, requiringFakes: fakes)
    guard plan.failures.isEmpty else { throw ServiceError(failures: plan.failures) }
    let run = ServiceRun(
      node: self, plan: plan, callSite: callSite, stopTimeout: stopTimeout, clock: clock)
    let failures = await run.start(continuingAfterFailure: false)
    guard failures.isEmpty else { throw ServiceError(failures: failures) }
    return RunningServices(run)
  }

  /// Builds every service the named ones lead to, starts and stops them, and reports every
  /// problem at once, each with the path that leads to it.
  ///
  /// Call it in a test, before the program serves anything:
  ///
  /// ```swift
  /// @Test func theServiceGraphHolds() async throws {
  ///   try await withTestEnvironment(.set(\.database, InMemoryDatabase())) {
  ///     try await EnvironmentNode.current.checkServices([\.notesService], forTests: true)
  ///   }
  /// }
  /// ```
  ///
  /// What it reports, in Milieu's terms, each a case of ``ServiceFailure/Reason``:
  /// - **A build that throws** (`buildFailed`): the service's own build threw.
  /// - **A missing input** (`missingInput`). Every key has a default, so no value is ever
  ///   absent; a service lacks what it needs when the build of a value it reads throws — a
  ///   `Derived` configuration whose build throws when it is not set — and it would be built on
  ///   that value's fallback.
  /// - **A cycle** (`cycle`). A build that reads itself, directly or through others, or a
  ///   service with a lifecycle that two of its own inputs lead back to.
  /// - **The depth limit** (`depthLimit`): derived values read through each other more than
  ///   256 deep, which Milieu does not build.
  /// - **A service with no value for tests**, when `forTests`: a service with a lifecycle built
  ///   from defaults alone — a plain value nobody set, or a derived value nothing it read was
  ///   set for. Defaults are what the program runs with, so a test would start the real thing.
  ///   Set the service, or a value it is built from, in the test's environment. Such a service
  ///   is not started, nor is anything that reads it.
  /// - **A start that fails.** Every other service is started, each once what it reads runs,
  ///   and then all are stopped, in reverse; a stop that fails or outlives `stopTimeout` is
  ///   reported too.
  /// - A service Milieu would not keep (new on every read), and any other issue reading a
  ///   service reports.
  ///
  /// A build that throws or closes a cycle is reported only if its value declares a
  /// `fallback`: without one the program stops at that read, as every read of it would.
  ///
  /// - Parameters:
  ///   - services: The services the program runs, as key paths into the environment.
  ///   - forTests: Whether a service built from defaults alone is a problem: pass `true` in
  ///     tests.
  ///   - stopTimeout: How long each service's stop may take: a positive duration.
  ///   - clock: The clock the stop timeout runs on.
  ///   - fileID: The call site, for diagnostics; leave the default.
  ///   - filePath: The call site's path; leave the default.
  ///   - line: The call site's line; leave the default.
  ///   - column: The call site's column; leave the default.
  /// - Throws: ``ServiceError`` with every problem found.
  public func checkServices(
    _ services: [PartialKeyPath<EnvironmentValues> & Sendable], forTests: Bool = false,
    stopTimeout: Duration = .seconds(30), clock: any Clock<Duration> = ContinuousClock(),
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async throws(ServiceError) {
    let invalid = ServiceFailure.checking(stopTimeout: stopTimeout)
    guard invalid.isEmpty else { throw ServiceError(failures: invalid) }
    let plan = servicePlan(services)
    var failures = plan.failures
    var skipping = Set<Int>()
    if forTests {
      for (index, service) in plan.services.enumerated() where service.isFromDefaultsOnly {
        skipping.insert(index)
        failures.append(
          ServiceFailure(service: service.name, path: service.path, reason: .noValueForTests))
      }
    }
    let run = ServiceRun(
      node: self, plan: plan,
      callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      stopTimeout: stopTimeout, clock: clock)
    failures += await run.start(continuingAfterFailure: true, skipping: skipping)
    failures += await run.stop()
    guard failures.isEmpty else { throw ServiceError(failures: failures) }
  }

  /// Reads the named services in one snapshot of this node's values, with the issues the reads
  /// report collected, and plans their start; a fake numbered in `fakes` must apply.
  private func servicePlan(
    _ services: [PartialKeyPath<EnvironmentValues> & Sendable],
    requiringFakes fakes: Set<UInt64> = []
  ) -> ServicePlan {
    let issues = IssueCollector()
    // A child whose only override is the reporter: what its reads build is kept where this
    // node's readers find it.
    let probe = child("reading services") { $0.issueReporter = issues.reporter }
    let values = probe.values
    var graph = ServiceReads()
    var named: [ServicePlan.Named] = []
    var failures: [ServiceFailure] = []
    DerivedReadFailure.$listener.withValue(issues) {
      for keyPath in services {
        let before = issues.count
        guard let root = graph.add(keyPath, in: values) else { continue }
        let names = root.reads.map { graph.reads[$0].name }
        let reported = issues.since(before)
        // A derived value whose build failed is read without a record: its failure names it.
        let name =
          names.isEmpty
          ? reported.first?.failure?.name ?? "\(type(of: root.value))"
          : names.joined(separator: ", ")
        guard reported.isEmpty else {
          failures += reported.map {
            ServiceFailure(service: name, path: [name], reason: $0.reason(reading: name))
          }
          continue
        }
        named.append(ServicePlan.Named(root: root, name: name))
      }
    }
    let faked = values.serviceLifecycleReplacements.compactMap { fake in
      graph.add(fake.service, in: values).map { (root: $0, fake: fake) }
    }
    let plan = ServicePlan(reads: graph, named: named, fakes: faked, required: fakes)
    return plan.adding(failures)
  }
}

/// Keeps the issues reported to its reporter, each with the failure the core told just before
/// it, if the issue is about that failure.
final class IssueCollector: Sendable {
  /// An issue, and how the read it is about failed.
  struct Reported {
    let issue: EnvironmentIssue
    let failure: DerivedReadFailure.Noted?

    /// What went wrong, reading the service named `service`: by the failure's kind, told where
    /// it happened.
    func reason(reading service: String) -> ServiceFailure.Reason {
      switch failure?.failure {
      case .threw(let error)?:
        failure?.name == service
          ? .buildFailed(error) : .missingInput(failure?.name ?? service, error)
      case .cycle?: .cycle(issue.message)
      case .depthLimit?: .depthLimit(issue.message)
      case nil: .issue(issue.message)
      }
    }
  }

  private struct State {
    var reported: [Reported] = []
    var told: DerivedReadFailure.Noted?
  }

  private let state = Lock(State())

  var reporter: IssueReporter {
    IssueReporter { [self] issue in
      state.withLock { state in
        let told = state.told.take()
        let failure = told?.declaration == issue.location ? told : nil
        state.reported.append(Reported(issue: issue, failure: failure))
      }
    }
  }

  /// Takes what the core tells of the failure of the read whose issue it reports next.
  func tell(_ failure: DerivedReadFailure.Noted) {
    state.withLock { $0.told = failure }
  }

  var count: Int { state.withLock { $0.reported.count } }

  func since(_ start: Int) -> [Reported] {
    state.withLock { Array($0.reported[start...]) }
  }
}
