import Milieu
import MilieuTestSupport
import Testing

/// Each way a graph of services can go wrong gets an error that names the service, and leaves
/// nothing running.
@Suite struct ServiceBadInputTests {
  /// Whether every service that ran was stopped.
  private func nothingRuns(_ log: LifecycleLog) -> Bool {
    let all = log.all
    let running = all.filter { $0.hasPrefix("running ") }.map { $0.dropFirst("running ".count) }
    return running.allSatisfy { all.contains("stop \($0)") }
  }

  /// The first failure of starting `services` at `node`, which must throw.
  private func firstFailure(
    starting services: [PartialKeyPath<EnvironmentValues> & Sendable], at node: EnvironmentNode,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> ServiceFailure {
    let error = await #expect(throws: ServiceError.self, sourceLocation: sourceLocation) {
      try await node.startServices(services)
    }
    return try #require(error?.failures.first, sourceLocation: sourceLocation)
  }

  @Test func aStartThatThrowsStopsWhatStartedAndNamesTheServiceAndItsPath() async throws {
    let script = ServiceScript(failingStarts: ["database postgres://app"])
    let app = serviceNode(script: script)
    let error = await #expect(throws: ServiceError.self) {
      try await app.startServices([\.metrics, \.notesService])
    }
    let failure = try #require(error?.failures.first)
    #expect(error?.failures.count == 1)
    #expect(failure.service == "database")
    #expect(failure.path == ["notesService", "noteStore", "database"])
    guard case .startFailed(let cause) = failure.reason else {
      Issue.record("expected a failed start, got \(failure.reason)")
      return
    }
    #expect(cause is Oops)
    #expect(
      failure.description.hasPrefix(
        "database (notesService → noteStore → database) failed to start: oops."))
    #expect(script.log.count(of: "start searchIndex") == 0)
    #expect(nothingRuns(script.log))
    // Nothing is kept: the node starts again once the database does.
    let fixed = app.child("fixed") { $0.serviceScript = ServiceScript() }
    try await fixed.startServices([\.notesService]).stop()
  }

  @Test func aNodeWhoseServicesRunCannotStartThemAgain() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let running = try await app.startServices([\.metrics])
    let error = await #expect(throws: ServiceError.self) {
      try await app.startServices([\.metrics])
    }
    let failure = try #require(error?.failures.first)
    guard case .alreadyRunning(let startedAt) = failure.reason else {
      Issue.record("expected already running, got \(failure.reason)")
      return
    }
    #expect(startedAt.hasPrefix("MilieuTests/ServiceBadInputTests.swift:"))
    #expect(failure.description.contains("A node runs its services once"))
    #expect(script.log.count(of: "start metrics") == 1)
    try await running.stop()
    #expect(script.log.count(of: "stop metrics") == 1)
  }

  @Test func aSiblingThatSharesTheServicesDoesNotStartThemTwice() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let first = try await app.child("first").startServices([\.notesService])
    let second = try await app.child("second").startServices([\.notesService])
    #expect(second.services.isEmpty)
    #expect(script.log.count(of: "start notesService") == 1)
    try await second.stop()
    #expect(script.log.count(of: "stop notesService") == 0)
    try await first.stop()
    #expect(script.log.count(of: "stop notesService") == 1)
  }

  @Test func aFreedRunThatBorrowedEverythingGivesItBackAndFreesItsNode() async throws {
    let issues = IssueLog()
    let app = serviceNode(issues: issues)
    let tenant = app.child("tenant")
    let appServices = try await app.startServices([\.metrics])
    var tenantServices: RunningServices? = try await tenant.startServices([\.metrics])
    #expect(tenantServices?.services.isEmpty == true)
    tenantServices = nil
    // Freed, its stop runs on a task of its own: the tenant can start again once it has.
    var again: RunningServices?
    for _ in 0..<10_000 where again == nil {
      again = try? await tenant.startServices([\.metrics])
      if again == nil { await Task.yield() }
    }
    let restarted = try #require(again, "the tenant stays marked as running")
    try await restarted.stop()
    try await appServices.stop()
    #expect(issues.messages.isEmpty)
  }

  @Test func aCycleOfDerivedServicesStartsNothing() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let failure = try await firstFailure(starting: [\.cyclicA], at: app)
    #expect("\(failure.reason)" == "cycle")
    #expect(failure.description.contains("cyclicA → cyclicB → cyclicA"))
    #expect(script.log.all.isEmpty)
  }

  @Test func aServiceReadAgainThroughWhatItReadsIsACycle() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    app.set(\.sharedService, to: ScriptedService("shared", script))
    let failure = try await firstFailure(starting: [\.sharedAgain], at: app)
    #expect("\(failure.reason)" == "cycle")
    #expect(Set(failure.path) == ["sharedAgain", "middle"])
    #expect(failure.description.contains("is a cycle of services with lifecycles"))
    #expect(script.log.all.isEmpty)
  }

  @Test func aBuildThatThrowsStartsNothing() async throws {
    let script = ServiceScript()
    let failure = try await firstFailure(
      starting: [\.metrics, \.brokenService], at: serviceNode(script: script))
    #expect("\(failure.reason)" == "build failed: oops")
    guard case .buildFailed(let cause) = failure.reason else {
      Issue.record("expected a failed build, got \(failure.reason)")
      return
    }
    #expect(cause is Oops)
    #expect(
      failure.description
        == "brokenService could not be built: its build threw oops. Fix what it reads, or catch "
        + "the error in its build.")
    #expect(script.log.all.isEmpty)
  }

  @Test func aValueThatCannotBeBuiltIsAMissingInputOfTheServiceBuiltOnIt() async throws {
    let script = ServiceScript()
    let failure = try await firstFailure(
      starting: [\.configuredService], at: serviceNode(script: script))
    #expect(failure.service == "configuredService")
    #expect("\(failure.reason)" == "missing input: brokenConfig")
    guard case .missingInput(let input, let cause) = failure.reason else {
      Issue.record("expected a missing input, got \(failure.reason)")
      return
    }
    #expect(input == "brokenConfig")
    #expect(cause is Oops)
    #expect(
      failure.description
        == "configuredService lacks what it needs: building brokenConfig, which it is built "
        + "from, threw oops, so it would be built on brokenConfig's fallback. Fix what "
        + "brokenConfig reads, or catch the error in its build.")
    #expect(script.log.all.isEmpty)
  }

  @Test func aChainDeeperThanBuildsNestIsNotACycle() async throws {
    let script = ServiceScript()
    let failure = try await firstFailure(starting: [\.deepService], at: serviceNode(script: script))
    #expect(failure.service == "deepService")
    #expect("\(failure.reason)" == "depth limit")
    #expect(failure.description.contains("derived values deep"))
    #expect(script.log.all.isEmpty)
  }

  @Test func aServiceNewOnEveryReadCannotStart() async throws {
    let failure = try await firstFailure(starting: [\.freshService], at: serviceNode())
    #expect(failure.description.hasPrefix("freshService cannot be started: it is built anew"))
  }

  @Test func aNodeFreedWhileItsServicesRunStopsThemAndSaysSo() async throws {
    let script = ServiceScript()
    let issues = IssueLog()
    var tenant: EnvironmentNode? = serviceNode("tenant", script: script, issues: issues)
    var running = try await tenant?.startServices([\.notesService])
    tenant = nil
    running = nil
    await eventually("the services are stopped") {
      script.log.count(of: "stop database postgres://app") == 1
    }
    #expect(
      script.log.all.suffix(3) == [
        "stop notesService", "stop searchIndex", "stop database postgres://app",
      ])
    #expect(issues.messages.count == 1)
    #expect(
      issues.messages.first?.hasPrefix(
        "the services of node \"tenant\" (database, searchIndex, notesService) were still "
          + "running when the RunningServices that started them was freed.") == true)
    _ = running
  }

  @Test func aCancelledStartStopsWhatStartedAndNamesWhatDidNot() async throws {
    let script = ServiceScript(hangingStarts: ["database postgres://app"])
    let app = serviceNode(script: script)
    let start = Task { try await app.startServices([\.metrics, \.notesService]) }
    await eventually("metrics run and the database is starting") {
      script.log.all.contains("running metrics")
        && script.log.all.contains("start database postgres://app")
    }
    start.cancel()
    let error = await #expect(throws: ServiceError.self) { try await start.value }
    #expect(
      error?.failures.map(\.service) == ["database", "searchIndex", "notesService"])
    #expect(error?.failures.allSatisfy { "\($0.reason)" == "start cancelled" } == true)
    #expect(script.log.all.last == "stop metrics")
    #expect(nothingRuns(script.log))
  }

  @Test func aStartsOwnErrorIsReportedWhenTheCallerWasCancelledMeanwhile() async throws {
    let script = ServiceScript(closingStarts: ["metrics"])
    let app = serviceNode(script: script)
    let start = Task { try await app.startServices([\.metrics]) }
    await eventually("the metrics are starting") { script.log.all == ["start metrics"] }
    start.cancel()
    let error = await #expect(throws: ServiceError.self) { try await start.value }
    #expect(error?.failures.count == 1)
    guard case .startFailed(let cause) = error?.failures.first?.reason else {
      Issue.record("expected the start's own error, got \(String(describing: error))")
      return
    }
    #expect(cause is ConnectionClosed)
  }

  @Test func everyStartThatFailsIsReportedWithItsOwnError() async throws {
    // The database starts, and is connecting, when the metrics fail: the run cancels it, and
    // its start throws an error of its own.
    let meeting = Meeting()
    let script = ServiceScript(
      failingStarts: ["metrics"],
      meetings: ["metrics": meeting, "database postgres://app": meeting],
      closingStarts: ["database postgres://app"])
    let app = serviceNode(script: script)
    let error = await #expect(throws: ServiceError.self) {
      try await app.startServices([\.metrics, \.database])
    }
    let failures = error?.failures ?? []
    #expect(failures.map(\.service) == ["metrics", "database"])
    #expect(
      failures.map { failure in
        if case .startFailed(let cause) = failure.reason {
          "\(type(of: cause))"
        } else {
          "\(failure.reason)"
        }
      } == ["Oops", "ConnectionClosed"])
    #expect(nothingRuns(script.log))
  }
}

/// An argument that cannot be followed is an error naming it and what to pass, and nothing is
/// read or started.
@Suite struct ServiceArgumentTests {
  @Test(arguments: [Duration.zero, .seconds(-1), .milliseconds(-5)])
  func aStopTimeoutThatIsNotPositiveIsAnError(_ timeout: Duration) async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let started = await #expect(throws: ServiceError.self) {
      try await app.startServices([\.metrics], stopTimeout: timeout)
    }
    let checked = await #expect(throws: ServiceError.self) {
      try await app.checkServices([\.metrics], stopTimeout: timeout)
    }
    for error in [started, checked] {
      let failure = try #require(error?.failures.first)
      #expect(error?.failures.count == 1)
      #expect("\(failure.reason)" == "invalid argument: stopTimeout")
      #expect(
        failure.description
          == "stopTimeout is \(timeout), but every stop takes some time: pass how long each "
          + "service's stop may take, a positive duration such as .seconds(30).")
    }
    #expect(script.log.all.isEmpty)
  }
}
