@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTestSupport
import Synchronization
import Testing

@Suite struct AlertStressTests {
  static let producerCount = 8
  static let alertsPerProducer = 10_000
  /// Each producer keeps at most this many alerts unresolved, so the host holds at most
  /// 8 × 8 = 64: one shown and 63 waiting, exactly the queue's bound. Nothing overflows, and the
  /// queue runs full.
  static let window = 8
  static let queueBound = producerCount * window - 1

  /// 8 producers × 10,000 alerts through one host, answered by one task with seeded random taps,
  /// dismissals, taps on a stranger's button, stale taps and double taps.
  ///
  /// Every alert resolves exactly once with the outcome its answer called for, each producer's
  /// alerts are presented in the order it showed them, no alert is presented while another is
  /// unanswered, and after every answer the host's queue is within its bound. Button actions run
  /// exactly once per accepted answer.
  @Test(.timeLimit(.minutes(2)))
  func eightyThousandAlertsResolveExactlyOnceInProducerOrder() async {
    let total = Self.producerCount * Self.alertsPerProducer
    let ledger = OutcomeLedger(count: total)
    let actionRuns = Counter()
    let presenter = QueueingPresenter()
    let (answered, host) = await Self.run(
      total, presenter: presenter, ledger: ledger, actionRuns: actionRuns)

    #expect(answered.count == total)
    #expect(answered.violations == [])
    #expect(answered.largestQueue <= Self.queueBound)
    #expect(answered.largestQueue > 0, "the queue never held anything: nothing was stressed")
    #expect(presenter.overlaps == 0, "alerts presented while another was unanswered")
    #expect(answered.outOfOrder == 0, "alerts presented out of their producer's order")

    // Exactly once, and the outcome that was called for.
    let outcomes = ledger.snapshot()
    #expect(outcomes.resolvedTwice == 0)
    #expect(outcomes.unresolved == 0)
    #expect(outcomes.mismatched == 0, "outcomes that differ from the answer given")
    #expect(actionRuns.count == answered.expectedActionRuns)
    await eventually("the host is freed with its last reference") { host.object == nil }
  }

  /// Runs the producers and the answering task against a new host, checks that the host is
  /// empty at the end and that it is freed with its last reference, and returns what the
  /// answering task saw.
  static func run(
    _ total: Int, presenter: QueueingPresenter, ledger: OutcomeLedger, actionRuns: Counter
  ) async -> (AnswerTally, WeakReference<AlertHost>) {
    let host = AlertHost(
      policy: PresentationPolicy(maximumPending: queueBound), presenter: presenter)
    let action = ShowAlertAction(host: host)

    let answered = await withTaskGroup(of: AnswerTally?.self) { group in
      for producer in 0..<producerCount {
        group.addTask {
          await produce(producer, through: action, ledger: ledger, actionRuns: actionRuns)
          return nil
        }
      }
      group.addTask {
        await answer(total, in: host, presenter: presenter, ledger: ledger)
      }
      // If the answering task stops early, the producers waiting for their windows stop too.
      var tally = AnswerTally()
      for await result in group {
        guard let result else { continue }
        tally = result
        if result.count < total { group.cancelAll() }
      }
      return tally
    }
    #expect(host.current == nil && host.pendingCount == 0)
    return (answered, WeakReference(host))
  }

  /// Shows `alertsPerProducer` alerts, keeping at most `window` unresolved at a time; one in 16
  /// is shown with `ask` and awaited, the others with a completion. Waits until all resolved.
  static func produce(
    _ producer: Int, through action: ShowAlertAction, ledger: OutcomeLedger,
    actionRuns: Counter
  ) async {
    var random = SplitMix64(seed: 0xA1E7 &+ UInt64(producer))
    let permits = Permits(window)
    for index in 0..<alertsPerProducer where !Task.isCancelled {
      let alert = makeAlert(
        producer: producer, index: index, actionRuns: actionRuns, random: &random)
      let slot = producer * alertsPerProducer + index
      await permits.acquire()
      if UInt8.random(in: 0..<16, using: &random) == 0 {
        ledger.resolve(slot, with: await action.ask(alert))
        permits.release()
      } else {
        action(alert) { outcome in
          ledger.resolve(slot, with: outcome)
          permits.release()
        }
      }
    }
    await permits.drain()
  }

  /// An alert titled `producer/index` with up to three buttons (none gives one OK button; at
  /// most one cancel button, no two titles alike), some of which have actions.
  static func makeAlert(
    producer: Int, index: Int, actionRuns: Counter, random: inout SplitMix64
  ) -> AlertData {
    let count = Int.random(in: 0...3, using: &random)
    let cancelAt =
      Bool.random(using: &random) ? Int.random(in: 0..<max(1, count), using: &random) : -1
    let buttons = (0..<count).map { position in
      let action: (@Sendable () async -> Void)? =
        Bool.random(using: &random) ? { @Sendable in actionRuns.increment() } : nil
      if position == cancelAt { return AlertButton.cancel("Cancel \(position)", action: action) }
      return Bool.random(using: &random)
        ? AlertButton.destructive("Delete \(position)", action: action)
        : AlertButton.default("Go \(position)", action: action)
    }
    return AlertData(title: "\(producer)/\(index)", buttons: buttons)
  }

  /// Answers `total` alerts as the presenter receives them, checking the host after each.
  static func answer(
    _ total: Int, in host: AlertHost, presenter: QueueingPresenter, ledger: OutcomeLedger
  ) async -> AnswerTally {
    var random = SplitMix64(seed: 0xD15_3A5E)
    var tally = AnswerTally()
    var nextIndex = [Int](repeating: 0, count: producerCount)
    var previous: AlertData?
    while tally.count < total {
      guard let alert = await presenter.next() else {
        tally.violations.append("no alert came after \(tally.count) answers: cancelled")
        break
      }
      let (producer, index) = parseTitle(alert.title)
      if nextIndex[producer] != index { tally.outOfOrder += 1 }
      nextIndex[producer] = index + 1
      if host.current?.id != alert.id {
        tally.violations.append("\(alert.title) was presented but is not current")
      }

      // Refused answers first: they must change nothing.
      switch UInt8.random(in: 0..<20, using: &random) {
      case 0:
        tally.expectRefusal(in: host, shown: alert) { try host.tap(AlertButton("Go 0"), of: alert) }
      case 1:
        if let previous {
          tally.expectRefusal(in: host, shown: alert) {
            try host.tap(previous.buttons[0], of: previous)
          }
        }
      default:
        break
      }

      // The answer: a tap on one of its buttons, or a dismissal.
      let expected: AlertOutcome
      let position = Int.random(in: -1..<alert.buttons.count, using: &random)
      let button = position < 0 ? nil : alert.buttons[position]
      do {
        if button != nil {
          guard let tap = alert.tapOfButton(at: position) else {
            tally.violations.append("\(alert.title) has no button \(position)")
            break
          }
          expected = .answered(tap)
        } else {
          expected = .dismissed
        }
        if (button ?? alert.cancelButton)?.action != nil { tally.expectedActionRuns += 1 }
        try await answerAndWait(alert, in: host, tapping: button)
      } catch {
        tally.violations.append("the answer to \(alert.title) was refused: \(error)")
        break
      }
      ledger.expect(expected, at: producer * alertsPerProducer + index)

      // A double tap: refused, and nothing runs twice.
      if UInt8.random(in: 0..<20, using: &random) == 0 {
        do {
          try await host.dismissAndWait(alert)
          tally.violations.append("a second answer to \(alert.title) was accepted")
        } catch {}
      }

      // The host's invariants, after every answer.
      if host.current?.id == alert.id {
        tally.violations.append("\(alert.title) is still current after its answer")
      }
      let pending = host.pendingCount
      tally.largestQueue = max(tally.largestQueue, pending)
      if pending > queueBound {
        tally.violations.append("\(pending) alerts wait, more than the bound \(queueBound)")
      }
      previous = alert
      tally.count += 1
    }
    return tally
  }

  /// Taps a button, or dismisses when there is none, and waits for the action to finish.
  static func answerAndWait(
    _ alert: AlertData, in host: AlertHost, tapping button: AlertButton?
  ) async throws(PresentationError) {
    if let button {
      try await host.tapAndWait(button, of: alert)
    } else {
      try await host.dismissAndWait(alert)
    }
  }

  /// The producer and index in a title `producer/index`.
  static func parseTitle(_ title: String) -> (producer: Int, index: Int) {
    var numbers = [0, 0]
    var part = 0
    for byte in title.utf8 {
      if byte == UInt8(ascii: "/") {
        part = 1
      } else {
        numbers[part] = numbers[part] * 10 + Int(byte - UInt8(ascii: "0"))
      }
    }
    return (numbers[0], numbers[1])
  }
}

/// Hands presented alerts to the answering task in order, and checks that a new alert is
/// presented only once the previous one was answered.
final class QueueingPresenter: Presenter, Sendable {
  private struct State {
    var presented: [AlertData] = []
    var head = 0
    var waiter: CheckedContinuation<AlertData?, Never>?
    var isCancelled = false
    var unanswered = 0
    var overlaps = 0
  }

  private let state = Lock(State())

  /// How often an alert was presented while another was still unanswered, or was presented
  /// without being the host's current alert: always 0.
  var overlaps: Int { state.withLock { $0.overlaps } }

  func present(_ alert: AlertData, in host: AlertHost) {
    // Nobody answers an alert before the answering task has taken it from here, so it is
    // current now.
    let isCurrent = host.current?.id == alert.id
    let waiter = state.withLock { state -> CheckedContinuation<AlertData?, Never>? in
      if state.unanswered > 0 || !isCurrent { state.overlaps += 1 }
      state.unanswered += 1
      state.presented.append(alert)
      guard let waiter = state.waiter else { return nil }
      state.waiter = nil
      state.head += 1
      state.unanswered -= 1
      return waiter
    }
    waiter?.resume(returning: alert)
  }

  func withdraw(_ alert: AlertData, from host: AlertHost) {
    Issue.record("\(alert.title) was withdrawn; nothing in the stress test withdraws")
  }

  /// The next presented alert, in order, waiting for it if need be; `nil` once the waiting
  /// task is cancelled. From then on the alert counts as being answered.
  func next() async -> AlertData? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let alert = state.withLock { state -> AlertData?? in
          if state.isCancelled { return .some(nil) }
          guard state.head < state.presented.count else {
            state.waiter = continuation
            return nil
          }
          defer { state.head += 1 }
          state.unanswered -= 1
          return state.presented[state.head]
        }
        if let alert { continuation.resume(returning: alert) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.isCancelled = true
        return state.waiter.take()
      }
      waiter?.resume(returning: nil)
    }
  }
}

/// A counting semaphore for one producer: at most `count` alerts unresolved. A producer that
/// runs out waits until half of its permits are back, so that it wakes once per batch of
/// alerts rather than once per alert. Cancelling the waiting task ends every wait.
final class Permits: Sendable {
  private struct State {
    var available: Int
    var waiter: CheckedContinuation<Void, Never>?
    var isDraining = false
    var isCancelled = false
  }

  private let count: Int
  private let state: Lock<State>

  init(_ count: Int) {
    self.count = count
    state = Lock(State(available: count))
  }

  /// Takes a permit, waiting if none is left. One task waits at a time.
  func acquire() async {
    await wait { state in
      guard state.available > 0 else { return false }
      state.available -= 1
      return true
    }
  }

  /// Waits until every permit is back.
  func drain() async {
    await wait { state in
      state.isDraining = true
      return state.available == count
    }
  }

  /// Gives a permit back. Wakes an `acquire` once half the permits are back, handing it one, and
  /// a `drain` once all are.
  func release() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.available += 1
      guard state.waiter != nil else { return nil }
      if state.isDraining {
        guard state.available == count else { return nil }
      } else {
        guard state.available * 2 >= count else { return nil }
        state.available -= 1
      }
      return state.waiter.take()
    }
    waiter?.resume()
  }

  /// Returns at once when `isReady` says so (it may take a permit), else when woken or cancelled.
  private func wait(until isReady: (inout State) -> Bool) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state in
          if state.isCancelled || isReady(&state) { return true }
          state.waiter = continuation
          return false
        }
        if ready { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.isCancelled = true
        return state.waiter.take()
      }
      waiter?.resume()
    }
  }
}

/// What the answering task saw and did.
struct AnswerTally: Sendable {
  var count = 0
  var outOfOrder = 0
  var largestQueue = 0
  var expectedActionRuns = 0
  var violations: [String] = []

  /// Runs an answer that must be refused, and checks that it changed nothing.
  mutating func expectRefusal(
    in host: AlertHost, shown alert: AlertData, _ answer: () throws -> Void
  ) {
    let pending = host.pendingCount
    do {
      try answer()
      violations.append("a wrong answer to \(alert.title) was accepted")
    } catch {
      if host.current?.id != alert.id { violations.append("a refused answer changed current") }
      if host.pendingCount < pending { violations.append("a refused answer changed the queue") }
    }
  }
}

/// Every alert's expected and actual outcome, by slot.
final class OutcomeLedger: Sendable {
  private struct Entry {
    var expected: AlertOutcome?
    var outcome: AlertOutcome?
    var resolutions = 0
  }

  private let entries: Lock<[Entry]>

  init(count: Int) {
    entries = Lock([Entry](repeating: Entry(), count: count))
  }

  func resolve(_ slot: Int, with outcome: AlertOutcome) {
    entries.withLock { entries in
      entries[slot].outcome = outcome
      entries[slot].resolutions += 1
    }
  }

  func expect(_ outcome: AlertOutcome, at slot: Int) {
    entries.withLock { $0[slot].expected = outcome }
  }

  func snapshot() -> (resolvedTwice: Int, unresolved: Int, mismatched: Int) {
    entries.withLock { entries in
      (
        entries.count { $0.resolutions > 1 },
        entries.count { $0.resolutions == 0 },
        entries.count { $0.expected == nil || $0.expected != $0.outcome }
      )
    }
  }
}
