/// The services that run in the process, each once, and the nodes whose services run.
///
/// A run of services claims, under one lock, every service of its plan: one that no run has
/// is its own to start and stop; one that another run has, it borrows. A node runs its
/// services once at a time. Entries hold their service and their node through the run that
/// made them, so an identity here is always one of something held.
final class ServiceRegistry: Sendable {
  static let shared = ServiceRegistry()

  /// How a run has a service.
  enum Claim: Sendable {
    /// The run starts and stops it.
    case owned(ServiceRegistration)
    /// Another run does; this one waits for it to run and reads it.
    case borrowed(ServiceRegistration)

    var registration: ServiceRegistration {
      switch self {
      case .owned(let registration), .borrowed(let registration): registration
      }
    }
  }

  private struct State {
    var services: [ServicePlan.Identity: ServiceRegistration] = [:]
    /// Where the services of each node that runs them were started.
    var nodes: [ObjectIdentifier: CallSite] = [:]
  }

  private let state = Lock(State())

  /// Claims the services of `plan` for run `run` of `node`'s services, started at `callSite`;
  /// or, if the node's services run already, says where they were started.
  func claim(
    _ plan: ServicePlan, node: EnvironmentNode, run: UInt64, at callSite: CallSite
  ) -> Result<[Claim], AlreadyRunning> {
    let owner = node.description
    return state.withLock { state in
      if let started = state.nodes[ObjectIdentifier(node)] {
        return .failure(AlreadyRunning(startedAt: started))
      }
      state.nodes[ObjectIdentifier(node)] = callSite
      return .success(
        plan.services.map { service in
          if let running = state.services[service.identity] {
            running.borrow(by: run, node: owner)
            return .borrowed(running)
          }
          let registration = ServiceRegistration(owner: owner)
          state.services[service.identity] = registration
          return .owned(registration)
        })
    }
  }

  /// Where the services of a node were started, when they run already.
  struct AlreadyRunning: Error {
    let startedAt: CallSite
  }

  /// Forgets a service that stopped, or never started; returns the nodes whose runs still
  /// borrow it.
  func remove(_ identity: ServicePlan.Identity, _ registration: ServiceRegistration) -> [String] {
    state.withLock { state in
      if state.services[identity] === registration { state.services[identity] = nil }
    }
    return registration.borrowers
  }

  /// Records that `node`'s services no longer run.
  func release(_ node: EnvironmentNode) {
    state.withLock { _ = $0.nodes.removeValue(forKey: ObjectIdentifier(node)) }
  }
}
