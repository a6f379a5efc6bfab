@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing

@Suite struct PriorityTests {
  /// Answers the host's alerts one after another, and returns their titles in the order shown.
  private func drain(_ host: AlertHost) throws -> [String] {
    var titles: [String] = []
    while let alert = host.current {
      titles.append(alert.title)
      try host.dismiss(alert)
    }
    return titles
  }

  @Test func higherPrioritiesGoFirstAndOnePriorityStaysFirstInFirstOut() throws {
    let host = AlertHost()
    host.show(AlertData(title: "shown", priority: .low))
    host.show(AlertData(title: "normal 1"))
    host.show(AlertData(title: "low 1", priority: .low))
    host.show(AlertData(title: "high 1", priority: .high))
    host.show(AlertData(title: "normal 2"))
    host.show(AlertData(title: "50", priority: PresentationPriority(50)))
    host.show(AlertData(title: "high 2", priority: .high))
    host.show(AlertData(title: "low 2", priority: .low))

    // The alert shown keeps the screen; the others wait in the order they will be shown.
    #expect(host.current?.title == "shown")
    #expect(
      host.pending.map(\.title) == [
        "high 1", "high 2", "50", "normal 1", "normal 2", "low 1", "low 2",
      ])
    #expect(
      try drain(host) == [
        "shown", "high 1", "high 2", "50", "normal 1", "normal 2", "low 1", "low 2",
      ])
  }

  @Test func anAlertThatNamesNoPriorityIsNormal() {
    #expect(AlertData(title: "A").priority == .normal)
    #expect(Toast("Saved").priority == .normal)
    #expect(PresentationPriority.low < .normal && PresentationPriority.normal < .high)
    #expect(
      [PresentationPriority.low, .normal, .high, PresentationPriority(7)].map(\.description) == [
        "low", "normal", "high", "priority 7",
      ])
  }

  @Test func replacingIgnoresPriorities() {
    let host = AlertHost(policy: .replace)
    let outcomes = Outcomes()
    host.show(AlertData(title: "urgent", priority: .high)) { outcomes.append($0) }
    let tip = AlertData(title: "tip", priority: .low)
    host.show(tip)
    #expect(host.current?.title == "tip")
    #expect(outcomes.all == [.dropped(.replaced(by: tip.id))])
  }

  @Test func droppingNewIgnoresPriorities() {
    let host = AlertHost(policy: .dropNew)
    let outcomes = Outcomes()
    host.show(AlertData(title: "tip", priority: .low))
    host.show(AlertData(title: "urgent", priority: .high)) { outcomes.append($0) }
    #expect(host.current?.title == "tip")
    #expect(outcomes.all == [.dropped(.busy)])
  }

  @Test func deduplicationKeepsTheFirstWhateverItsPriority() {
    let host = AlertHost()
    host.show(AlertData(title: "shown"))
    let first = AlertData(title: "low", deduplicationKey: "sync", priority: .low)
    host.show(first)
    let outcomes = Outcomes()
    host.show(AlertData(title: "high", deduplicationKey: "sync", priority: .high)) {
      outcomes.append($0)
    }
    #expect(host.pending.map(\.title) == ["low"])
    #expect(outcomes.all == [.dropped(.duplicate(of: first.id))])
  }

  @Test func aFullQueueDropsTheNewestOfTheLowestPriority() throws {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 2, overflow: .dropNew))
    let outcomes = Lock<[String: AlertOutcome]>([:])
    func show(_ title: String, _ priority: PresentationPriority) {
      host.show(AlertData(title: title, priority: priority)) { outcome in
        outcomes.withLock { $0[title] = outcome }
      }
    }
    show("shown", .normal)
    show("tip 1", .low)
    show("tip 2", .low)
    show("tip 3", .low)  // the newest of the lowest: itself
    show("disk full", .high)  // goes ahead of the tips: the newest tip makes room
    show("normal", .normal)  // goes ahead of "tip 1", which makes room
    show("another tip", .low)  // the lowest, and the newest: itself

    let full = AlertOutcome.dropped(.queueFull(limit: 2))
    #expect(host.pending.map(\.title) == ["disk full", "normal"])
    #expect(
      outcomes.withLock { $0 } == [
        "tip 3": full, "tip 2": full, "tip 1": full, "another tip": full,
      ])
  }

  @Test func aFullQueueCanDropTheOldestOfTheLowestPriority() throws {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 3, overflow: .dropOldest))
    let dropped = Lock<[String]>([])
    func show(_ title: String, _ priority: PresentationPriority) {
      host.show(AlertData(title: title, priority: priority)) { outcome in
        if outcome == .dropped(.queueFull(limit: 3)) { dropped.withLock { $0.append(title) } }
      }
    }
    show("shown", .normal)
    show("high 1", .high)
    show("normal 1", .normal)
    show("normal 2", .normal)
    show("low", .low)  // lower than every waiting alert: itself
    show("normal 3", .normal)  // the oldest normal makes room
    show("high 2", .high)  // the oldest of the lowest, "normal 2", makes room

    #expect(dropped.withLock { $0 } == ["low", "normal 1", "normal 2"])
    #expect(host.pending.map(\.title) == ["high 1", "high 2", "normal 3"])
  }

  @Test func aFullQueueOfOnePriorityDropsAsBefore() {
    let newest = AlertHost(policy: PresentationPolicy(maximumPending: 2, overflow: .dropNew))
    let oldest = AlertHost(policy: PresentationPolicy(maximumPending: 2, overflow: .dropOldest))
    for host in [newest, oldest] {
      for title in ["shown", "1", "2", "3"] { host.show(AlertData(title: title)) }
    }
    #expect(newest.pending.map(\.title) == ["1", "2"])
    #expect(oldest.pending.map(\.title) == ["2", "3"])
  }

  @Test func theEventsShowEachAlertsPriorityAndTheOrderItIsPresentedIn() async throws {
    let host = AlertHost()
    var events = host.events().makeAsyncIterator()
    host.show(AlertData(title: "shown"))
    host.show(AlertData(title: "later", priority: .low))
    host.show(AlertData(title: "sooner", priority: .high))
    _ = try drain(host)

    var lines: [String] = []
    while lines.count < 8, let event = await events.next() {
      switch event {
      case .enqueued(let alert): lines.append("enqueued \(alert.title) (\(alert.priority))")
      case .presented(let alert): lines.append("presented \(alert.title)")
      case .dismissed(let alert): lines.append("dismissed \(alert.title)")
      case .answered, .dropped: lines.append("unexpected \(event)")
      }
    }
    #expect(
      lines == [
        "presented shown",
        "enqueued later (low)", "enqueued sooner (high)",
        "dismissed shown", "presented sooner",
        "dismissed sooner", "presented later",
        "dismissed later",
      ])
  }

  /// 8 threads show 300 alerts each, of three priorities, while one alert holds the screen;
  /// every alert is then presented highest priority first and, within one priority, in the
  /// order the host took them in.
  @Test func aBurstOfMixedPrioritiesFromManyThreadsIsPresentedInThePromisedOrder() async throws {
    let producers = 8
    let perProducer = 300
    let host = AlertHost(policy: PresentationPolicy(maximumPending: producers * perProducer))
    let events = host.events()
    host.show(AlertData(title: "blocker"))
    let priorities: [PresentationPriority] = [.low, .normal, .high]
    onThreads(producers) { producer in
      for index in 0..<perProducer {
        host.show(
          AlertData(
            title: "\(producer)/\(index)",
            priority: priorities[(producer + index) % priorities.count]))
      }
    }

    // The order the host took them in: the order of their `enqueued` events.
    var arrivals: [AlertData] = []
    for await event in events {
      if case .enqueued(let alert) = event, alert.title != "blocker" { arrivals.append(alert) }
      if arrivals.count == producers * perProducer { break }
    }
    let presented = try drain(host)

    // Sorting is stable: within one priority, arrivals keep their order.
    let promised = arrivals.enumerated()
      .sorted { ($0.element.priority, $1.offset) > ($1.element.priority, $0.offset) }
      .map(\.element.title)
    #expect(presented == ["blocker"] + promised)
    // Each producer's alerts of one priority come in the order it showed them.
    for producer in 0..<producers {
      for priority in priorities {
        let indices = presented.compactMap { title -> Int? in
          let parts = title.split(separator: "/")
          guard parts.count == 2, parts[0] == "\(producer)", let index = Int(parts[1]),
            priorities[(producer + index) % priorities.count] == priority
          else { return nil }
          return index
        }
        #expect(indices == indices.sorted(), "producer \(producer), \(priority), out of order")
        #expect(indices.count == perProducer / priorities.count)
      }
    }
  }
}
