import Synchronization

/// One start of a node's services: it claims them, starts those it owns in the plan's order,
/// concurrently where they are independent, and stops them in reverse.
final class ServiceRun: Sendable {
  let node: EnvironmentNode
  let plan: ServicePlan
  let callSite: CallSite
  private let stopTimeout: Duration
  private let clock: any Clock<Duration>
  private let reporter: IssueReporter
  /// Tells this run from every other, for the services it borrows.
  private let number: UInt64

  private enum Phase {
    case idle
    case starting
    case running
    case stopping
    case stopped
  }

  private struct State {
    var phase = Phase.idle
    var claims: [ServiceRegistry.Claim] = []
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
    state.withLock { state in state.started.map { plan.services[$0].name } }
  }

  private enum Outcome: Sendable {
    case started
    case failed(any Error)
    case cancelled
    case ownerFailed(String)
  }

  /// Starts the plan's services, each once every service it reads runs, and returns the
  /// failures. After a failure, unless `continuingAfterFailure`, it starts nothing more and
  /// stops what it started, in reverse. A service in `skipping`, and every one that reads it,
  /// is not started.
  func start(continuingAfterFailure: Bool, skipping: Set<Int> = []) async -> [ServiceFailure] {
    let claims: [ServiceRegistry.Claim]
    switch ServiceRegistry.shared.claim(plan, node: node, run: number, at: callSite) {
    case .failure(let running):
      let names = plan.services.map(\.name)
      return [
        ServiceFailure(
          service: names.joined(separator: ", "), path: [],
          reason: .alreadyRunning(running.startedAt.description))
      ]
    case .success(let granted):
      claims = granted
    }
    state.withLock { state in
      state.claims = claims
      state.phase = .starting
    }

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
    let node = node
    await withTaskGroup(of: (Int, Outcome).self) { group in
      var inFlight = 0
      while true {
        if !halted {
          for index in ready {
            let lifecycle = services[index].lifecycle
            let claim = claims[index]
            group.addTask {
              (index, await Self.start(lifecycle, claim: claim, in: node))
            }
          }
          inFlight += ready.count
          ready = []
        }
        guard inFlight > 0, let (index, outcome) = await group.next() else { break }
        inFlight -= 1
        ended[index] = true
        let service = services[index]
        switch outcome {
        case .started:
          if case .owned = claims[index] { state.withLock { $0.started.append(index) } }
          for reader in readers[index] {
            remaining[reader] -= 1
            if remaining[reader] == 0, !skipping.contains(reader) { ready.append(reader) }
          }
          continue
        case .failed(let error):
          failures.append(
            ServiceFailure(service: service.name, path: service.path, reason: .startFailed(error)))
        case .ownerFailed(let owner):
          failures.append(
            ServiceFailure(
              service: service.name, path: service.path, reason: .dependencyFailed(owner)))
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
    // What this run owns and never started: its readers elsewhere learn it will not run.
    let started = state.withLock { Set($0.started) }
    for (index, claim) in claims.enumerated() where !started.contains(index) {
      guard case .owned(let registration) = claim else { continue }
      registration.finishStarting(succeeded: false)
      _ = ServiceRegistry.shared.remove(services[index].identity, registration)
    }
    state.withLock { $0.phase = .running }
    if !failures.isEmpty, !continuingAfterFailure {
      failures += await stop()
    }
    return failures
  }

  /// Starts one service this run owns, or waits for one it borrows to run.
  private static func start(
    _ lifecycle: any LifecycleService, claim: ServiceRegistry.Claim, in node: EnvironmentNode
  ) async -> Outcome {
    switch claim {
    case .owned(let registration):
      do {
        try await node.withCurrent { try await lifecycle.start() }
        registration.finishStarting(succeeded: true)
        return .started
      } catch {
        return Task.isCancelled ? .cancelled : .failed(error)
      }
    case .borrowed(let registration):
      do {
        try await registration.waitUntilRunning()
        return .started
      } catch is ServiceRegistration.NotStarted {
        return .ownerFailed(registration.owner)
      } catch {
        return .cancelled
      }
    }
  }

  /// Stops the services this run started, in reverse, each bounded by the stop timeout, and
  /// gives back those it borrowed; returns the failures. Only the first call stops anything.
  func stop() async -> [ServiceFailure] {
    let taken = state.withLock { state -> (claims: [ServiceRegistry.Claim], started: [Int])? in
      guard case .running = state.phase else { return nil }
      state.phase = .stopping
      defer { state.started = [] }
      return (state.claims, state.started)
    }
    guard let (claims, started) = taken else { return [] }
    for case .borrowed(let registration) in claims { registration.giveBack(by: number) }
    var failures: [ServiceFailure] = []
    let node = node
    for index in started.reversed() {
      let service = plan.services[index]
      let lifecycle = service.lifecycle
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
      let borrowers = ServiceRegistry.shared.remove(service.identity, claims[index].registration)
      if !borrowers.isEmpty {
        report(
          "\(service.name) was stopped with the services of \(node) while the services of "
            + "\(borrowers.joined(separator: ", ")) still read it. Stop the services of a "
            + "subtree before those of the node above it.")
      }
    }
    ServiceRegistry.shared.release(node)
    state.withLock { $0.phase = .stopped }
    return failures
  }

  /// Stops the services if they still run, reporting that nobody did: their handle is gone.
  /// A run that started nothing of its own (it borrowed every service) still gives back what it
  /// borrowed and frees its node for another start, without a report.
  func abandon() {
    let running = state.withLock { state -> [String]? in
      guard case .running = state.phase else { return nil }
      return state.started.map { plan.services[$0].name }
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
