/// The services that run in the process, each once, counted by the runs that use them; and the
/// nodes whose services run.
///
/// It keeps a ``ServiceLedger`` under one lock and does what its transitions return — wakes
/// the runs waiting for a service — with no lock held. Entries hold their service, and the node
/// that started it, so an identity here is always one of something held.
final class ServiceRegistry: Sendable {
  static let shared = ServiceRegistry()

  typealias Identity = ServicePlan.Identity
  typealias Ledger = ServiceLedger<
    Identity, Registered, CheckedContinuation<ServiceTurn, any Error>
  >

  /// A service as one run's plan has it, and the node whose services it is started with.
  struct Registered: Sendable {
    let service: ServicePlan.Service
    let node: EnvironmentNode
  }

  private struct State {
    var ledger = Ledger()
    /// Where the services of each node that runs them were started.
    var nodes: [ObjectIdentifier: CallSite] = [:]
  }

  private let state = Lock(State())

  /// Records that run `run` of `node`'s services, started at `callSite`, uses every service of
  /// `plan`; or, if the node's services run already, says where they were started.
  func claim(_ plan: ServicePlan, node: EnvironmentNode, run: UInt64, at callSite: CallSite)
    -> AlreadyRunning?
  {
    let services = plan.services.map { service in
      (
        identity: service.identity, service: Registered(service: service, node: node),
        reads: service.dependencies.map { plan.services[$0].identity.real }
      )
    }
    return state.withLock { state in
      if let started = state.nodes[ObjectIdentifier(node)] {
        return AlreadyRunning(startedAt: started)
      }
      state.nodes[ObjectIdentifier(node)] = callSite
      state.ledger.claim(services, by: run)
      return nil
    }
  }

  /// Where the services of a node were started, when they run already.
  struct AlreadyRunning: Error {
    let startedAt: CallSite
  }

  /// Waits for `run`'s turn with a service it claimed: to start it, or to read it once it runs.
  ///
  /// - Throws: `CancellationError` if the waiting task is cancelled first.
  func turn(of identity: Identity, for run: UInt64) async throws -> ServiceTurn {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let turn = state.withLock {
          $0.ledger.turn(of: identity, for: run, waiter: continuation)
        }
        if let turn {
          continuation.resume(returning: turn)
        } else if Task.isCancelled {
          cancelWait(of: identity, for: run)
        }
      }
    } onCancel: {
      cancelWait(of: identity, for: run)
    }
  }

  private func cancelWait(of identity: Identity, for run: UInt64) {
    let waiter = state.withLock { $0.ledger.cancelWait(of: identity, for: run) }
    waiter?.resume(throwing: CancellationError())
  }

  /// Records that `run` started a service, and wakes the runs waiting for it.
  func started(_ identity: Identity, by run: UInt64) {
    let waiters = state.withLock { $0.ledger.started(identity, by: run) }
    for waiter in waiters { waiter.resume(returning: .running) }
  }

  /// Records that `run`'s start of a service threw, or that `run` gave it up, and hands it to
  /// the next run that waits for it, which starts it afresh.
  func startEnded(_ identity: Identity, by run: UInt64) {
    let next = state.withLock { $0.ledger.startEnded(identity, by: run) }
    next?.resume(returning: .start)
  }

  /// Records that `run` uses nothing any more; returns the services it now stops.
  func release(_ run: UInt64) -> Set<Identity> {
    state.withLock { $0.ledger.release(run) }
  }

  /// The service among `candidates` that `run` stops next, marked as stopping; see
  /// ``ServiceLedger/beginNextStop(among:by:)``.
  func beginNextStop(among candidates: inout Set<Identity>, by run: UInt64)
    -> (identity: Identity, service: Registered)?
  {
    state.withLock { $0.ledger.beginNextStop(among: &candidates, by: run) }
  }

  /// Records that `run`'s stop of a service returned; returns what `run` now stops, and hands
  /// the service to the next run that waits for it, which starts it afresh.
  func stopEnded(_ identity: Identity, by run: UInt64) -> Set<Identity> {
    let (candidates, next) = state.withLock { $0.ledger.stopEnded(identity, by: run) }
    next?.resume(returning: .start)
    return candidates
  }

  /// Records that `node`'s services no longer run.
  func release(_ node: EnvironmentNode) {
    state.withLock { _ = $0.nodes.removeValue(forKey: ObjectIdentifier(node)) }
  }
}
