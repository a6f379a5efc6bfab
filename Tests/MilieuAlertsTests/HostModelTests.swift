import Testing

@testable import MilieuAlerts

/// Every interleaving of two threads that show alerts and one that answers them, over a small
/// queue, run on the host's own state machine and checked against what a host promises.
///
/// A thread steps where the host lets other threads in: each transition under the lock (with the
/// delivery it takes), each call to the presenter, and each end of a delivery. The answering
/// thread is the presenter's user: it looks at the alert the presenter shows, then answers it,
/// so another thread may change the host in between. When every thread is done the host is
/// freed. In every interleaving:
///
/// - the presenter is handed calls by one thread at a time, the deliverer, and none is left
///   without one;
/// - it never shows two alerts at once, is told to withdraw only the alert it shows, and is
///   presented exactly the alerts the host made current, in that order;
/// - once the threads are done, it shows what the host shows, and the queue is within its
///   bound;
/// - every showing resolves exactly once, including those the freed host still held.
@Suite struct HostModelTests {
  typealias Machine = PresentationStateMachine<AlertData>

  enum Operation {
    case show(AlertData)
    case withdraw(AlertData)
    /// Answers the alert the presenter shows, if any.
    case answerShown
  }

  enum Stage {
    case ready
    /// Looked at the presenter: answers this alert at the next step.
    case answering(AlertData)
    /// The deliverer, presenting an item shown at once.
    case presenting(AlertData)
    /// The deliverer, making these calls.
    case calling([Machine.Call])
    /// The deliverer, with its calls made.
    case finishing
  }

  struct Thread {
    var operations: [Operation]
    var stage = Stage.ready
    /// The outcome of the operation under way, delivered once its calls are made.
    var outcome: (PresentationID, String)?
  }

  struct World {
    var machine: Machine
    var threads: [Thread]
    /// The alert the presenter shows.
    var screen: AlertData?
    var presented: [PresentationID] = []
    var madeCurrent: [PresentationID] = []
    /// The host's current item at the last step.
    var lastCurrent: PresentationID?
    var outcomes: [PresentationID: [String]] = [:]
    /// The threads that stepped, in order.
    var trace: [Int] = []
    /// What went wrong, with the step it went wrong at.
    var problems: [String] = []

    mutating func fail(_ problem: String) {
      problems.append("after steps \(trace): \(problem)")
    }

    var isDone: Bool {
      threads.allSatisfy {
        if case .ready = $0.stage { $0.operations.isEmpty } else { false }
      }
    }
  }

  struct Scenario: CustomTestStringConvertible {
    let name: String
    let policy: PresentationPolicy
    let threads: [[Operation]]
    /// How many interleavings the threads have: every one is run.
    let interleavings: Int
    var testDescription: String { name }
  }

  static let scenarios: [Scenario] = {
    let a1 = AlertData(title: "a1", deduplicationKey: "same")
    let a2 = AlertData(title: "a2")
    let b1 = AlertData(title: "b1", deduplicationKey: "same")
    let b2 = AlertData(title: "b2")
    let twice = AlertData(title: "twice")
    let small = PresentationPolicy(maximumPending: 1)
    return [
      Scenario(
        name: "queue of one, deduplicated, withdrawn", policy: small,
        threads: [
          [.show(a1), .show(a2)], [.show(b1), .withdraw(b1)], [.answerShown, .answerShown],
        ], interleavings: 8_847),
      Scenario(
        name: "queue of one, full, withdrawn", policy: small,
        threads: [[.show(a2), .withdraw(a2)], [.show(b2)], [.answerShown, .answerShown]],
        interleavings: 1_700),
      Scenario(
        name: "replace", policy: PresentationPolicy(whenBusy: .replace, maximumPending: 1),
        threads: [[.show(a2), .show(a1)], [.show(b2)], [.answerShown, .answerShown]],
        interleavings: 10_627),
      Scenario(
        name: "drop new", policy: PresentationPolicy(whenBusy: .dropNew, maximumPending: 1),
        threads: [[.show(a2)], [.show(b2), .withdraw(b2)], [.answerShown]], interleavings: 215),
      Scenario(
        name: "one value shown twice", policy: small,
        threads: [[.show(twice)], [.show(twice)], [.answerShown, .answerShown]], interleavings: 162),
    ]
  }()

  @Test(arguments: scenarios)
  func everyInterleavingKeepsTheHostsPromises(_ scenario: Scenario) {
    let world = World(
      machine: Machine(policy: scenario.policy, hasPresenter: true),
      threads: scenario.threads.map { Thread(operations: $0) })
    var interleavings = 0
    var problems: [String] = []
    explore(world, scenario: scenario, interleavings: &interleavings, problems: &problems)
    #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.first ?? "")")
    #expect(interleavings == scenario.interleavings)
  }

  /// Runs every thread that can step from `world`, and each continuation after it, to the end;
  /// stops at the first interleaving that breaks a promise.
  func explore(
    _ world: World, scenario: Scenario, interleavings: inout Int, problems: inout [String]
  ) {
    if world.isDone {
      interleavings += 1
      problems += check(world, scenario: scenario)
      return
    }
    for index in world.threads.indices where problems.isEmpty {
      var next = world
      next.trace.append(index)
      guard step(&next, thread: index) else { continue }
      if !next.problems.isEmpty {
        problems += next.problems
        return
      }
      explore(next, scenario: scenario, interleavings: &interleavings, problems: &problems)
    }
  }

  /// Takes one step of a thread; `false` when it has nothing left to do.
  func step(_ world: inout World, thread index: Int) -> Bool {
    var thread = world.threads[index]
    defer { world.threads[index] = thread }
    let token = UInt(index + 1)
    switch thread.stage {
    case .ready:
      guard !thread.operations.isEmpty else { return false }
      switch thread.operations.removeFirst() {
      case .show(let alert):
        var showing = Optional(Machine.Showing(item: alert, resolution: nil, reporter: nil))
        let admission = world.machine.show(&showing, by: token)
        switch admission {
        case .handled: break
        case .presentNow: thread.stage = .presenting(alert)
        case .dropped(let dropped, let reason): thread.outcome = (dropped.item.id, "\(reason)")
        }
        afterTransition(&world, &thread, token: token)
      case .withdraw(let alert):
        if let withdrawn = world.machine.withdraw(alert.id) {
          thread.outcome = (withdrawn.item.id, "withdrawn")
        }
        afterTransition(&world, &thread, token: token)
      case .answerShown:
        if let shown = world.screen { thread.stage = .answering(shown) }
      }
    case .answering(let alert):
      thread.stage = .ready
      if let answered = try? world.machine.answer(alert, with: alert.tapOfButton(at: 0)) {
        // The presenter answered it: it shows it no more.
        if !(world.screen?.id == alert.id) {
          world.fail("answered \(alert.title), not the alert shown")
        }
        world.screen = nil
        thread.outcome = (answered.item.id, "answered")
      }
      afterTransition(&world, &thread, token: token)
    case .presenting(let alert):
      present(alert, in: &world, by: token)
      thread.stage = .finishing
    case .calling(var calls):
      if !(world.machine.deliverer == token) {
        world.fail("a call made by a thread not delivering")
      }
      switch calls.removeFirst() {
      case .present(let alert): present(alert, in: &world, by: token)
      case .withdraw(let alert):
        if !(world.screen?.id == alert.id) {
          world.fail("withdrew \(alert.title), not the one shown")
        }
        world.screen = nil
      case .event, .expire, .cancelExpiry:
        if !(false) { world.fail("a call no scenario asks for") }
      }
      thread.stage = calls.isEmpty ? .finishing : .calling(calls)
    case .finishing:
      guard world.machine.deliverer == token else {
        world.fail(
          "thread \(index) finishes a delivery that \(String(describing: world.machine.deliverer)) holds"
        )
        return true
      }
      var emptied: [Machine.Call] = []
      if let (calls, _) = world.machine.finishDelivery(by: token, returning: &emptied) {
        thread.stage = .calling(calls)
      } else {
        thread.stage = .ready
        deliverOutcome(&world, &thread)
      }
      noteCurrent(&world)
    }
    return true
  }

  /// What follows a transition under the lock: taking the calls it queued, unless another
  /// thread delivers them.
  func afterTransition(_ world: inout World, _ thread: inout Thread, token: UInt) {
    if let (calls, _) = world.machine.takeDelivery(by: token) {
      thread.stage = .calling(calls)
    }
    if !(world.machine.isHandedOff) { world.fail("a call queued without a deliverer") }
    noteCurrent(&world)
    if case .ready = thread.stage { deliverOutcome(&world, &thread) }
  }

  func present(_ alert: AlertData, in world: inout World, by token: UInt) {
    if !(world.machine.deliverer == token) { world.fail("presented by a thread not delivering") }
    if !(world.screen == nil) {
      world.fail("\(alert.title) presented over \(world.screen?.title ?? "")")
    }
    world.screen = alert
    world.presented.append(alert.id)
  }

  func deliverOutcome(_ world: inout World, _ thread: inout Thread) {
    guard let (id, outcome) = thread.outcome else { return }
    world.outcomes[id, default: []].append(outcome)
    thread.outcome = nil
  }

  /// Records the item the host made current, if it changed.
  func noteCurrent(_ world: inout World) {
    let current = world.machine.turns.current?.item.id
    if let current, current != world.lastCurrent { world.madeCurrent.append(current) }
    world.lastCurrent = current
  }

  /// The promises broken once every thread is done, and once the host is then freed.
  func check(_ world: World, scenario: Scenario) -> [String] {
    var world = world
    guard world.machine.deliverer == nil, world.machine.isHandedOff else {
      world.fail("calls are left to make, or a thread still delivers")
      return world.problems
    }
    if !(world.screen?.id == world.machine.turns.current?.item.id) {
      world.fail(
        "the presenter shows \(world.screen?.title ?? "nothing"), the host "
          + (world.machine.turns.current?.item.title ?? "nothing"))
    }
    if !(world.presented == world.madeCurrent) {
      world.fail("presented \(world.presented), made current \(world.madeCurrent)")
    }
    if !(world.machine.turns.waitingCount <= scenario.policy.maximumPending) {
      world.fail("the queue overflowed")
    }
    var showings: [PresentationID: Int] = [:]
    for operations in scenario.threads {
      for case .show(let alert) in operations { showings[alert.id, default: 0] += 1 }
    }
    // A value still held has one showing unresolved.
    let held = ([world.machine.turns.current].compactMap { $0 } + world.machine.turns.waiting)
    for showing in held {
      let outcomes = world.outcomes[showing.id] ?? []
      if !(outcomes.count < showings[showing.id] ?? 0) {
        world.fail("\(showing.item.title) is held, yet resolved as \(outcomes)")
      }
    }

    let remains = world.machine.free()
    if let shown = remains.shown {
      if !(world.screen?.id == shown.id) { world.fail("the freed host withdrew another alert") }
      world.screen = nil
    }
    for showing in remains.showings {
      world.outcomes[showing.id, default: []].append("host deallocated")
    }
    if !(world.screen == nil) { world.fail("the presenter still shows an alert of a freed host") }
    for (id, count) in showings {
      if !(world.outcomes[id]?.count == count) {
        world.fail("\(id), shown \(count) times, resolved as \(world.outcomes[id] ?? [])")
      }
    }
    return world.problems
  }
}
