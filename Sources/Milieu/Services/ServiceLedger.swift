/// Who uses each service that runs in the process, as a state machine: its state, the
/// transitions the runs of services make, and what each transition asks its caller to do.
///
/// A service is counted, not owned. Every run of services that names it, directly or through
/// what it reads, uses it from its claim to its release. The first run whose turn comes starts
/// it; the others wait until it runs. It is stopped once nothing uses it and no service here
/// reads it any more, by the run whose release or stop made it so: after the last run that uses
/// it, and after every service that reads it, whatever the order of the starts and the stops.
/// While it stops, a run that needs it waits for the stop to return, then starts it afresh; a
/// start that throws, or is given up, hands it to the next run that waits for it.
///
/// Nothing here waits, locks or calls a service: ``ServiceRegistry`` keeps the ledger under one
/// lock and does what the transitions return, with no lock held. `Waiter` is how a run waits
/// for its turn (a continuation there, a number in the model test).
struct ServiceLedger<Identity: Hashable, Service, Waiter> {
  typealias Run = UInt64
  typealias Turn = ServiceTurn

  fileprivate enum Phase: Hashable {
    /// Used, not started: the first run whose turn comes starts it.
    case idle
    case starting(by: Run)
    /// Running; `order` tells which of two services started first.
    case running(order: UInt64)
    case stopping(by: Run)
  }

  /// What a run knows of a service it uses: the service as its plan has it, and what it reads.
  fileprivate struct Use {
    var service: Service
    var reads: [Identity]
  }

  fileprivate struct Entry {
    var phase = Phase.idle
    /// The service as the run that started it, or starts it, has it.
    var service: Service
    /// What it reads, as that run saw it: none of those stops while this is here.
    var reads: [Identity]
    var users: [Run: Use] = [:]
    /// The runs waiting for their turn, first come first.
    var waiters: [Waiting] = []
  }

  fileprivate struct Waiting {
    let run: Run
    let waiter: Waiter
  }

  private var entries: [Identity: Entry] = [:]
  private var nextOrder: UInt64 = 0

  /// Whether no service is used, starting, running or stopping.
  var isEmpty: Bool { entries.isEmpty }

  /// Records that `run` uses `services`, each with what it reads in that run's plan.
  mutating func claim(
    _ services: [(identity: Identity, service: Service, reads: [Identity])], by run: Run
  ) {
    for (identity, service, reads) in services {
      let use = Use(service: service, reads: reads)
      if entries[identity] == nil {
        entries[identity] = Entry(service: service, reads: reads)
      }
      entries[identity]?.users[run] = use
    }
  }

  /// `run`'s turn with a service it claimed: the turn, or `nil` when the run must wait, with
  /// `waiter`, until the service is started or stopped by another.
  mutating func turn(of identity: Identity, for run: Run, waiter: Waiter) -> Turn? {
    guard var entry = entries[identity], entry.users[run] != nil else {
      preconditionFailure("a run asks its turn with a service it has not claimed")
    }
    defer { entries[identity] = entry }
    switch entry.phase {
    case .idle:
      entry.becomeStarted(by: run)
      return .start
    case .running:
      return .running
    case .starting, .stopping:
      entry.waiters.append(Waiting(run: run, waiter: waiter))
      return nil
    }
  }

  /// Forgets that `run` waits for a service, its wait cancelled; returns its waiter, if it still
  /// waited.
  mutating func cancelWait(of identity: Identity, for run: Run) -> Waiter? {
    guard let index = entries[identity]?.waiters.firstIndex(where: { $0.run == run }) else {
      return nil
    }
    return entries[identity]?.waiters.remove(at: index).waiter
  }

  /// Records that `run`'s start of a service returned; returns the waiters to tell it runs.
  mutating func started(_ identity: Identity, by run: Run) -> [Waiter] {
    guard var entry = entries[identity], entry.phase == .starting(by: run) else {
      preconditionFailure("a start returned that the ledger did not hand out")
    }
    nextOrder += 1
    entry.phase = .running(order: nextOrder)
    let waiters = entry.waiters.map(\.waiter)
    entry.waiters = []
    entries[identity] = entry
    return waiters
  }

  /// Records that `run`'s start of a service threw, or that the run gave it up; returns the
  /// waiter whose turn it now is to start it.
  mutating func startEnded(_ identity: Identity, by run: Run) -> Waiter? {
    guard var entry = entries[identity], entry.phase == .starting(by: run) else {
      preconditionFailure("a start ended that the ledger did not hand out")
    }
    entry.phase = .idle
    let next = entry.handOver()
    entries[identity] = entry
    return next
  }

  /// Records that `run` no longer uses anything; returns the services it now stops: those that
  /// nothing uses or reads any more.
  mutating func release(_ run: Run) -> Set<Identity> {
    var released: [Identity] = []
    for (identity, entry) in entries where entry.users[run] != nil {
      assert(!entry.waiters.contains { $0.run == run }, "a run released while it waits")
      entries[identity]?.users[run] = nil
      released.append(identity)
    }
    return settle(released)
  }

  /// The service among `candidates` that `run` stops next, the one started last, now marked as
  /// stopping; `nil` when none is left. A candidate that a run claimed again meanwhile, or that
  /// another run stops, leaves the candidates.
  mutating func beginNextStop(among candidates: inout Set<Identity>, by run: Run)
    -> (identity: Identity, service: Service)?
  {
    var next: (identity: Identity, order: UInt64)?
    for identity in candidates {
      guard let entry = entries[identity], entry.users.isEmpty, !isRead(identity),
        case .running(let order) = entry.phase
      else {
        candidates.remove(identity)
        continue
      }
      if next.map({ order > $0.order }) ?? true { next = (identity, order) }
    }
    guard let (identity, _) = next, var entry = entries[identity] else { return nil }
    candidates.remove(identity)
    entry.phase = .stopping(by: run)
    entries[identity] = entry
    return (identity, entry.service)
  }

  /// Records that `run`'s stop of a service returned, or gave up; returns what `run` now stops
  /// (what the service read that nothing uses or reads any more), and the waiter, if any,
  /// whose turn it is to start it afresh.
  mutating func stopEnded(_ identity: Identity, by run: Run)
    -> (candidates: Set<Identity>, next: Waiter?)
  {
    guard var entry = entries[identity], entry.phase == .stopping(by: run) else {
      preconditionFailure("a stop ended that the ledger did not hand out")
    }
    entry.phase = .idle
    if !entry.users.isEmpty {
      let next = entry.handOver()
      entries[identity] = entry
      return ([], next)
    }
    entries[identity] = nil
    return (settle(entry.reads), nil)
  }

  /// Of `identities`, drops the entries nothing uses that never started, and returns those
  /// that run and that nothing uses or reads: what the caller stops. An entry dropped lets go of
  /// what it read, which is settled in turn.
  private mutating func settle(_ identities: [Identity]) -> Set<Identity> {
    var pending = identities
    var stopping = Set<Identity>()
    while let identity = pending.popLast() {
      guard let entry = entries[identity], entry.users.isEmpty else { continue }
      switch entry.phase {
      case .idle:
        entries[identity] = nil
        pending += entry.reads
      case .running where !isRead(identity):
        stopping.insert(identity)
      case .running, .starting, .stopping:
        break
      }
    }
    return stopping
  }

  /// Whether a service here reads `identity`.
  private func isRead(_ identity: Identity) -> Bool {
    entries.contains { $0.key != identity && $0.value.reads.contains(identity) }
  }
}

extension ServiceLedger.Entry {
  /// Makes `run` the one that starts the service, with the service and its reads as `run`'s
  /// plan has them.
  fileprivate mutating func becomeStarted(by run: ServiceLedger.Run) {
    if let use = users[run] {
      service = use.service
      reads = use.reads
    }
    phase = .starting(by: run)
  }

  /// Hands a service that is not running to the first run that waits for it: it starts it.
  fileprivate mutating func handOver() -> Waiter? {
    guard !waiters.isEmpty else { return nil }
    let next = waiters.removeFirst()
    becomeStarted(by: next.run)
    return next.waiter
  }
}

/// What a run does with a service of its plan when its turn comes.
enum ServiceTurn: Hashable, Sendable {
  /// Start it: no run has, or the one that did stopped it, or its start failed or was given up.
  case start
  /// Read it: it runs.
  case running
}

// The model test compares ledgers, to visit each state once.
extension ServiceLedger: Equatable where Service: Hashable, Waiter: Hashable {}
extension ServiceLedger: Hashable where Service: Hashable, Waiter: Hashable {}
extension ServiceLedger.Use: Equatable, Hashable where Service: Hashable {}
extension ServiceLedger.Entry: Equatable, Hashable where Service: Hashable, Waiter: Hashable {}
extension ServiceLedger.Waiting: Equatable, Hashable where Waiter: Hashable {}
