import Testing

@testable import Milieu

/// The ledger of shared services, driven through every interleaving of a few runs' starts,
/// failed starts, cancelled waits and stops, each state visited once: in every one, a service
/// starts only when it is stopped, is read only while it runs, stops only when no run uses it
/// and nothing that reads it runs; no run waits forever; and at the end nothing runs, each
/// service stopped as often as it started.
@Suite struct ServiceLedgerModelTests {
  /// The services of the model and what each reads: a metrics exporter `M` that every node
  /// shares, each node's database (`Da`, `Dt`) that reports to it, and each node's index.
  static let reads: [String: [String]] = [
    "M": [], "Da": ["M"], "Ia": ["Da"], "Dt": ["M"], "It": ["Dt"],
  ]

  @Test func anAppATenantAndASiblingThatSharesTheTenantsDatabase() {
    let explored = Model.explore(
      from: Model(plans: [["M", "Da", "Ia"], ["M", "Dt"], ["M", "Dt"]], rounds: [1, 1, 1]))
    #expect(explored.failures.isEmpty, "\(explored.failures.prefix(3))")
    #expect(explored.states > 1_000, "\(explored.states) states, \(explored.endings) endings")
    #expect(explored.endings > 0)
  }

  @Test func anAppThatStartsItsServicesTwiceBesideATenant() {
    let explored = Model.explore(
      from: Model(plans: [["M", "Da", "Ia"], ["M", "Dt"]], rounds: [2, 1]))
    #expect(explored.failures.isEmpty, "\(explored.failures.prefix(3))")
    #expect(explored.states > 1_000, "\(explored.states) states, \(explored.endings) endings")
    #expect(explored.endings > 0)
  }

  /// The check can fail: with the behaviour each defect of issue 41 came from put back into
  /// how the runs use the ledger, exploring finds the promise broken.
  @Test(arguments: Model.Defect.allCases)
  func theCheckFindsTheOldBehaviour(_ defect: Model.Defect) {
    var start = Model(plans: [["M", "Da", "Ia"], ["M", "Dt"]], rounds: [2, 1])
    start.defect = defect
    let explored = Model.explore(from: start)
    let expected =
      switch defect {
      case .ownerStopsWhatItStarted: "stopped M while run 0 uses it"
      case .startBorrowsAStoppingService: "told M runs while it is stopping"
      }
    #expect(
      explored.failures.contains { $0.contains(expected) },
      "\(explored.failures.map { $0.prefix(60) })")
  }

  struct Model: Hashable {
    typealias Ledger = ServiceLedger<String, String, UInt64>

    enum Instance: Hashable { case stopped, starting, running, stopping }

    /// How the services used to be shared: the run that started a service stopped it, and a
    /// start read a service that was stopping.
    enum Defect: Hashable, CaseIterable, Sendable {
      case ownerStopsWhatItStarted
      case startBorrowsAStoppingService
    }

    enum Step: Hashable {
      case claim
      case asking(Int)
      case waiting(Int)
      case startInFlight(Int)
      case releasing
      case picking(Set<String>)
      case stopInFlight(String, Set<String>)
      case done
    }

    struct Run: Hashable {
      var plan: [String]
      var roundsLeft: Int
      var step = Step.claim
      /// What it was told runs, or started, and has not released.
      var holds: Set<String> = []
      var mayCancel = true
      /// What it started, in order.
      var startedHere: [String] = []
    }

    var ledger = Ledger()
    var defect: Defect?
    var runs: [Run]
    var instances: [String: Instance] = [:]
    var starts: [String: Int] = [:]
    var stops: [String: Int] = [:]

    init(plans: [[String]], rounds: [Int]) {
      runs = zip(plans, rounds).map { Run(plan: $0, roundsLeft: $1) }
      for name in ServiceLedgerModelTests.reads.keys { instances[name] = .stopped }
    }

    struct Explored {
      var states = 0
      var endings = 0
      var failures: [String] = []
    }

    static func explore(from start: Model) -> Explored {
      var explored = Explored()
      var seen = Set<Model>()
      var pending = [start]
      while let model = pending.popLast(), explored.failures.count < 10 {
        guard seen.insert(model).inserted else { continue }
        explored.states += 1
        let next = model.successors()
        let going = model.runs.filter { $0.step != .done }
        if !going.isEmpty, going.allSatisfy({ if case .waiting = $0.step { true } else { false } })
        {
          explored.failures.append("every run waits for another: \(model)")
        }
        if next.isEmpty {
          if let problem = model.problemAtEnd() {
            explored.failures.append(problem)
          } else {
            explored.endings += 1
          }
        }
        for successor in next {
          switch successor {
          case .success(let model): pending.append(model)
          case .failure(let problem): explored.failures.append(problem.text)
          }
        }
      }
      return explored
    }

    struct Problem: Error { let text: String }

    /// Every state one step of one run leads to, or the problem that step shows.
    func successors() -> [Result<Model, Problem>] {
      var found: [Result<Model, Problem>] = []
      for index in runs.indices {
        switch runs[index].step {
        case .done:
          continue
        case .waiting:
          guard runs[index].mayCancel else { continue }
          found.append(
            stepping(index) { (model: inout Model) throws(Problem) in
              try model.cancel(index)
            })
        case .startInFlight:
          found.append(
            stepping(index) { (model: inout Model) throws(Problem) in
              try model.startReturns(index)
            })
          found.append(
            stepping(index) { (model: inout Model) throws(Problem) in
              try model.startThrows(index)
            })
        default:
          found.append(
            stepping(index) { (model: inout Model) throws(Problem) in
              try model.advance(index)
            })
        }
      }
      return found
    }

    private func stepping(_ index: Int, _ change: (inout Model) throws(Problem) -> Void)
      -> Result<Model, Problem>
    {
      var next = self
      do {
        try change(&next)
        return .success(next)
      } catch {
        return .failure(Problem(text: "run \(index): \(error.text) in \(self)"))
      }
    }

    private mutating func advance(_ index: Int) throws(Problem) {
      let run = UInt64(index)
      switch runs[index].step {
      case .claim:
        let plan = runs[index].plan
        ledger.claim(
          plan.map { ($0, $0, (ServiceLedgerModelTests.reads[$0] ?? []).filter(plan.contains)) },
          by: run)
        runs[index].step = .asking(0)
      case .asking(let position):
        guard position < runs[index].plan.count else {
          runs[index].step = .releasing
          return
        }
        let service = runs[index].plan[position]
        switch ledger.turn(of: service, for: run, waiter: run) {
        case .start:
          try beginStart(service, by: index, at: position)
        case .running:
          try told(service, runs: index)
          runs[index].step = .asking(position + 1)
        case nil where defect == .startBorrowsAStoppingService && instances[service] == .stopping:
          try told(service, runs: index)
        case nil:
          runs[index].step = .waiting(position)
        }
      case .releasing:
        runs[index].holds = []
        if defect == .ownerStopsWhatItStarted {
          // What the owner's stop would do: stop what it started, in reverse, whoever reads it.
          var owner = self
          for service in runs[index].startedHere.reversed() {
            if let problem = owner.problemStopping(service) { throw Problem(text: problem) }
            owner.instances[service] = .stopped
          }
          runs[index].startedHere = []
        }
        runs[index].step = .picking(ledger.release(run))
      case .picking(var candidates):
        guard let (service, _) = ledger.beginNextStop(among: &candidates, by: run) else {
          runs[index].roundsLeft -= 1
          runs[index].step = runs[index].roundsLeft > 0 ? .claim : .done
          return
        }
        if let problem = problemStopping(service) { throw Problem(text: problem) }
        instances[service] = .stopping
        runs[index].step = .stopInFlight(service, candidates)
      case .stopInFlight(let service, let candidates):
        instances[service] = .stopped
        stops[service, default: 0] += 1
        let (more, next) = ledger.stopEnded(service, by: run)
        if let next { try handOver(service, to: next) }
        runs[index].step = .picking(candidates.union(more))
      case .waiting, .startInFlight, .done:
        preconditionFailure("not a step of its own")
      }
    }

    private mutating func beginStart(_ service: String, by index: Int, at position: Int)
      throws(Problem)
    {
      guard instances[service] == .stopped else {
        throw Problem(text: "\(service) started while it is \(instances[service] ?? .stopped)")
      }
      instances[service] = .starting
      runs[index].step = .startInFlight(position)
    }

    private mutating func told(_ service: String, runs index: Int) throws(Problem) {
      guard instances[service] == .running else {
        throw Problem(text: "told \(service) runs while it is \(instances[service] ?? .stopped)")
      }
      runs[index].holds.insert(service)
    }

    private mutating func startReturns(_ index: Int) throws(Problem) {
      guard case .startInFlight(let position) = runs[index].step else { return }
      let service = runs[index].plan[position]
      instances[service] = .running
      starts[service, default: 0] += 1
      runs[index].holds.insert(service)
      if defect != nil { runs[index].startedHere.append(service) }
      runs[index].step = .asking(position + 1)
      for waiter in ledger.started(service, by: UInt64(index)) {
        let other = Int(waiter)
        guard case .waiting(let at) = runs[other].step, runs[other].plan[at] == service else {
          throw Problem(text: "woke run \(other), which does not wait for \(service)")
        }
        try told(service, runs: other)
        runs[other].step = .asking(at + 1)
      }
    }

    private mutating func startThrows(_ index: Int) throws(Problem) {
      guard case .startInFlight(let position) = runs[index].step else { return }
      let service = runs[index].plan[position]
      instances[service] = .stopped
      runs[index].step = .releasing
      if let next = ledger.startEnded(service, by: UInt64(index)) {
        try handOver(service, to: next)
      }
    }

    private mutating func cancel(_ index: Int) throws(Problem) {
      guard case .waiting(let position) = runs[index].step else { return }
      guard ledger.cancelWait(of: runs[index].plan[position], for: UInt64(index)) != nil else {
        throw Problem(text: "a waiting run is not among the waiters")
      }
      runs[index].mayCancel = false
      runs[index].step = .releasing
    }

    private mutating func handOver(_ service: String, to waiter: UInt64) throws(Problem) {
      let other = Int(waiter)
      guard case .waiting(let at) = runs[other].step, runs[other].plan[at] == service else {
        throw Problem(text: "handed \(service) to run \(other), which does not wait for it")
      }
      try beginStart(service, by: other, at: at)
    }

    /// Why `service` must not stop now, if it must not.
    func problemStopping(_ service: String) -> String? {
      if instances[service] != .running { return "stopped \(service), which does not run" }
      if let user = runs.firstIndex(where: { $0.holds.contains(service) }) {
        return "stopped \(service) while run \(user) uses it"
      }
      let readers = ServiceLedgerModelTests.reads.filter { $0.value.contains(service) }.keys
      if let reader = readers.first(where: { instances[$0] != .stopped }) {
        return
          "stopped \(service) while \(reader), which reads it, is \(instances[reader] ?? .stopped)"
      }
      return nil
    }

    func problemAtEnd() -> String? {
      if let stuck = runs.firstIndex(where: { $0.step != .done }) {
        return "run \(stuck) waits forever: \(self)"
      }
      if !ledger.isEmpty { return "the ledger keeps entries after every run ended: \(ledger)" }
      if let running = instances.first(where: { $0.value != .stopped }) {
        return "\(running.key) is \(running.value) after every run ended"
      }
      if starts != stops { return "starts \(starts) and stops \(stops) differ" }
      return nil
    }
  }
}
