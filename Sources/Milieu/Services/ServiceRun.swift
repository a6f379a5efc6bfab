import Synchronization

/// One start of a node's services: it claims them all in the registry, starts those whose turn
/// it is to start in the plan's order, concurrently where they are independent, and waits for
/// the others to run; its stop releases them, and stops those that nothing uses any more, each
/// after what reads it.
final class ServiceRun: Sendable {
  let node: EnvironmentNode
  let plan: ServicePlan
  let callSite: CallSite
  private let stopTimeout: Duration
  private let clock: any Clock<Duration>
  private let reporter: IssueReporter
  /// Tells this run from every other, in the registry.
  private let number: UInt64
  private let registry = ServiceRegistry.shared

  private enum Phase {
    /// Not claimed yet, or the claim failed.
    case unclaimed
    /// Its services are claimed: a stop releases them.
    case claimed
    case released
  }

  private struct State {
    var phase = Phase.unclaimed
    /// The services this run started, in the order their starts returned.
    var started: [Int] = []
  }

  private let state = Lock(State())
  private static let runs = Atomic<UInt64>(0)

  init(
    node: EnvironmentNode, plan: ServicePlan, callSite: CallSite, stopTimeout: Duration,
    clock: any Clock<Duration>
  ) {
    self.node = node
    self.plan = plan
    self.callSite = callSite
    self.stopTimeout = stopTimeout
    self.clock = clock
    self.reporter = node[\.issueReporter]
    self.number = Self.runs.add(1, ordering: .relaxed).newValue
  }

  /// The names of the services this run started, in the order they started.
  var startedNames: [String] {
    state.withLock { state in
      state.started.filter { plan.services[$0].isListed }.map { plan.services[$0].name }
    }
  }

  private enum Outcome: Sendable {
    /// It runs: started by this run, or by another.
    case running(startedHere: Bool)
    case failed(any Error)
    case cancelled
  }

  /// Starts the plan's services, each once every service it reads runs, and returns the
  /// failures. After a failure, unless `continuingAfterFailure`, it starts nothing more and
  /// stops what it started, in reverse. A service in `skipping`, and every one that reads it,
  /// is not started.
  func start(continuingAfterFailure: Bool, skipping: Set<Int> = []) async -> [ServiceFailure] {
    if let running = registry.claim(plan, node: node, run: number, at: callSite) {
      return [
        ServiceFailure(
          service: plan.services.map(\.name).joined(separator: ", "), path: [],
          reason: .alreadyRunning(running.startedAt.description))
      ]
    }
    state.withLock { $0.phase = .claimed }

    let services = plan.services
    var readers: [[Int]] = Array(repeating: [], count: services.count)
    for (index, service) in services.enumerated() {
      for dependency in service.dependencies { readers[dependency].append(index) }
    }
    var remaining = services.map(\.dependencies.count)
    var ready = services.indices.filter { remaining[$0] == 0 && !skipping.contains($0) }
    var ended = Array(repeating: false, count: services.count)
    var failures: [ServiceFailure] = []
    var halted = false
    await withTaskGroup(of: (Int, Outcome).self) { group in
      var inFlight = 0
      while true {
        if !halted {
          for index in ready {
            group.addTask { (index, await self.start(index)) }
          }
          inFlight += ready.count
          ready = []
        }
        guard inFlight > 0, let (index, outcome) = await group.next() else { break }
        inFlight -= 1
        ended[index] = true
        let service = services[index]
        switch outcome {
        case .running(let startedHere):
          if startedHere { state.withLock { $0.started.append(index) } }
          for reader in readers[index] {
            remaining[reader] -= 1
            if remaining[reader] == 0, !skipping.contains(reader) { ready.append(reader) }
          }
          continue
        case .failed(let error):
          failures.append(
            ServiceFailure(service: service.name, path: service.path, reason: .startFailed(error)))
        case .cancelled:
          // Cancelled by this run, after another failed: not a failure of its own.
          if halted { continue }
          failures.append(
            ServiceFailure(service: service.name, path: service.path, reason: .startCancelled))
        }
        if !continuingAfterFailure, !halted {
          halted = true
          group.cancelAll()
        }
      }
    }
    // The program was told to stop: name what never started.
    if Task.isCancelled {
      for index in services.indices where !ended[index] && !skipping.contains(index) {
        failures.append(
          ServiceFailure(
            service: services[index].name, path: services[index].path, reason: .startCancelled))
      }
    }
    if !failures.isEmpty, !continuingAfterFailure {
      failures += await stop()
    }
    return failures
  }

  /// Waits for this run's turn with a service, and starts it if the turn is this run's.
  private func start(_ index: Int) async -> Outcome {
    let service = plan.services[index]
    let turn: ServiceTurn
    do {
      turn = try await registry.turn(of: service.identity, for: number)
    } catch {
      return .cancelled
    }
    guard turn == .start else { return .running(startedHere: false) }
    guard !Task.isCancelled else {
      registry.startEnded(service.identity, by: number)
      return .cancelled
    }
    do {
      let lifecycle = service.lifecycle
      try await node.withCurrent { try await lifecycle.start() }
      registry.started(service.identity, by: number)
      return .running(startedHere: true)
    } catch {
      registry.startEnded(service.identity, by: number)
      // Its own error, whatever happened meanwhile; a cancellation only if it was cancelled.
      return error is CancellationError && Task.isCancelled ? .cancelled : .failed(error)
    }
  }

  /// Releases the services of this run and stops those that nothing uses any more, each after
  /// every service that reads it, one at a time, each bounded by the stop timeout; returns the
  /// failures. Only the first call stops anything.
  func stop() async -> [ServiceFailure] {
    let claimed = state.withLock { state in
      guard case .claimed = state.phase else { return false }
      state.phase = .released
      return true
    }
    guard claimed else { return [] }
    var candidates = registry.release(number)
    var failures: [ServiceFailure] = []
    while let (identity, registered) = registry.beginNextStop(among: &candidates, by: number) {
      let service = registered.service
      let (lifecycle, node) = (service.lifecycle, registered.node)
      let outcome = await BoundedCall.run(timeout: stopTimeout, clock: clock) {
        try await node.withCurrent { try await lifecycle.stop() }
      }
      switch outcome {
      case .returned: break
      case .threw(let error):
        failures.append(
          ServiceFailure(service: service.name, path: service.path, reason: .stopFailed(error)))
      case .timedOut:
        failures.append(
          ServiceFailure(
            service: service.name, path: service.path, reason: .stopTimedOut(after: stopTimeout)))
      }
      candidates.formUnion(registry.stopEnded(identity, by: number))
    }
    registry.release(node)
    return failures
  }

  /// Stops the services if they still run, reporting that nobody did: their handle is gone.
  /// A run that started nothing of its own (it read every service) still releases them and
  /// frees its node for another start, without a report.
  func abandon() {
    let running = state.withLock { state -> [String]? in
      guard case .claimed = state.phase else { return nil }
      return state.started.filter { plan.services[$0].isListed }.map { plan.services[$0].name }
    }
    guard let running else { return }
    if !running.isEmpty {
      report(
        "the services of \(node) (\(running.joined(separator: ", "))) were still running when "
          + "the RunningServices that started them was freed. Milieu stops them now, in reverse. "
          + "Keep it while they run, and call stop() when the program ends.")
    }
    Task {
      for failure in await self.stop() { self.report(failure.description) }
    }
  }

  private func report(_ message: String) {
    reporter.report(EnvironmentIssue(message, at: callSite))
  }
}
