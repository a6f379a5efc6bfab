@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import Synchronization
import Testing

/// Runs `body` in a node whose issue reporter collects issues instead of failing the test.
func collectingIssues<Result>(
  _ body: () throws -> Result
) rethrows -> (result: Result, issues: [EnvironmentIssue]) {
  let issues = IssueCollector()
  let node = EnvironmentNode.current.child("collecting issues") {
    $0.issueReporter = IssueReporter { issues.append($0) }
  }
  let result = try node.withCurrent(body)
  return (result, issues.all)
}

/// Runs async `body` in a node whose issue reporter collects issues instead of failing the test.
func collectingIssuesAsync<Result: Sendable>(
  _ body: () async -> Result
) async -> (result: Result, issues: [EnvironmentIssue]) {
  let issues = IssueCollector()
  let node = EnvironmentNode.current.child("collecting issues") {
    $0.issueReporter = IssueReporter { issues.append($0) }
  }
  let result = await node.withCurrent { await body() }
  return (result, issues.all)
}

final class IssueCollector: Sendable {
  private let issues = Lock<[EnvironmentIssue]>([])
  func append(_ issue: EnvironmentIssue) { issues.withLock { $0.append(issue) } }
  var all: [EnvironmentIssue] { issues.withLock { $0 } }
}

/// Records what a host asks of it; answers nothing by itself.
final class RecordingPresenter<Item: Presentable>: Presenter, Sendable {
  private let log = Lock<[String]>([])
  var entries: [String] { log.withLock { $0 } }

  func present(_ item: Item, in host: PresentationHost<Item>) {
    log.withLock { $0.append("present \(item.title)") }
  }

  func withdraw(_ item: Item, from host: PresentationHost<Item>) {
    log.withLock { $0.append("withdraw \(item.title)") }
  }
}

/// Taps an alert's first button as soon as it is presented.
struct TapFirstButtonPresenter: Presenter {
  func present(_ alert: AlertData, in host: AlertHost) {
    do {
      try host.tap(alert.buttons[0], of: alert)
    } catch {
      Issue.record("the presenter's tap was refused: \(error)")
    }
  }
  func withdraw(_ alert: AlertData, from host: AlertHost) {}
}

/// A thread-safe counter for actions.
final class Counter: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// The synchronous tap, which starts the button's action without waiting for it.
func tapWithoutWaiting(
  _ button: AlertButton, of alert: AlertData, in host: AlertHost
) throws(PresentationError) {
  try host.tap(button, of: alert)
}

/// Collects outcomes in arrival order.
final class Outcomes: Sendable {
  private let outcomes = Lock<[AlertOutcome]>([])
  func append(_ outcome: AlertOutcome) { outcomes.withLock { $0.append(outcome) } }
  var all: [AlertOutcome] { outcomes.withLock { $0 } }
}

/// A weak reference, to check that an object was freed.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  // nonisolated(unsafe): written once, by `init`.
  nonisolated(unsafe) weak var object: Object?

  init(_ object: Object?) {
    self.object = object
  }
}
