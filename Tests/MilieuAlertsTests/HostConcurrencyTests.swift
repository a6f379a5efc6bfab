@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import Testing

@Suite struct HostConcurrencyTests {
  /// 8 producers × 1,000 alerts into one host whose presenter taps at once.
  @Test func everyAlertIsPresentedOnceInProducerOrderAndResolved() async {
    let presented = Lock<[String]>([])
    struct Presenter: MilieuAlerts.Presenter {
      let presented: @Sendable (AlertData) -> Void
      func present(_ alert: AlertData, in host: AlertHost) {
        presented(alert)
        do { try host.tap(alert.buttons[0], of: alert) } catch { Issue.record("\(error)") }
      }
      func withdraw(_ alert: AlertData, from host: AlertHost) {}
    }
    let host = AlertHost(
      policy: PresentationPolicy(maximumPending: 10_000),
      presenter: Presenter { alert in presented.withLock { $0.append(alert.title) } })
    let action = ShowAlertAction(host: host)

    let outcomes = await withTaskGroup(of: [AlertOutcome].self) { group in
      for producer in 0..<8 {
        group.addTask {
          var outcomes: [AlertOutcome] = []
          for index in 0..<1_000 {
            outcomes.append(await action.ask(title: "\(producer)/\(index)"))
          }
          return outcomes
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }

    #expect(outcomes.count == 8_000)
    #expect(outcomes.allSatisfy { $0.tappedButton?.title == "OK" })
    let titles = presented.withLock { $0 }
    #expect(titles.count == 8_000)
    #expect(Set(titles).count == 8_000)
    for producer in 0..<8 {
      let order = titles.filter { $0.hasPrefix("\(producer)/") }.compactMap {
        Int($0.split(separator: "/")[1])
      }
      #expect(order == Array(0..<1_000), "producer \(producer) out of order")
    }
    #expect(host.current == nil)
  }

  /// Fire-and-forget producers racing a presenter that answers from other tasks.
  @Test func concurrentProducersAndAnswerersLoseNothing() async {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 100_000))
    let resolved = Counter()
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<4 {
        group.addTask {
          for index in 0..<500 {
            host.show(AlertData(title: "\(producer)-\(index)")) { _ in
              resolved.increment()
            }
          }
        }
      }
      for _ in 0..<2 {
        group.addTask {
          var answered = 0
          while resolved.count < 2_000 && answered < 1_000_000 {
            if let alert = host.current { try? await host.dismissAndWait(alert) }
            answered += 1
            await Task.yield()
          }
        }
      }
    }
    #expect(resolved.count == 2_000)
    #expect(host.current == nil && host.pendingCount == 0)
  }

  /// Tasks cancelled from this thread while they start to ask on another: however the
  /// cancellation falls, before the alert reaches the host, while it does, or after, each ask
  /// resolves as cancelled and takes its alert away.
  @Test(.timeLimit(.minutes(1)))
  func aCancellationRacingAnAskAlwaysWithdrawsTheAlert() async {
    let host = AlertHost()
    let action = ShowAlertAction(host: host)
    for index in 0..<2_000 {
      let asking = Task { await action.ask(title: "\(index)") }
      asking.cancel()
      #expect(await asking.value == .dropped(.cancelled))
      #expect(host.current == nil && host.pendingCount == 0)
    }
  }
}
