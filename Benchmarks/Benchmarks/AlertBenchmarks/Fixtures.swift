import MilieuAlerts
import Synchronization

/// A presenter that taps an alert's first button as soon as the host presents it.
///
/// The host calls its presenter with no lock held, so the tap re-enters the host from inside
/// `present`; the host presents the next pending alert, if any, once the tap has returned.
struct TapFirst: Presenter {
  func present(_ alert: AlertData, in host: AlertHost) {
    try? host.tap(alert.buttons[0], of: alert)
  }

  func withdraw(_: AlertData, from _: AlertHost) {}
}

/// The alerts the suite shows, and the checks that keep its measurements honest.
enum AlertFixture {
  /// An alert such as an application shows: a title, a message, a destructive button and a
  /// cancel button, none with an action, and no deduplication key.
  static func alert() -> AlertData {
    AlertData(
      title: "Delete 3 notes?", message: "This cannot be undone.",
      buttons: [.destructive("Delete"), .cancel()])
  }

  /// `count` distinct alerts (each has its own identifier), made before measuring.
  static func alerts(count: Int) -> [AlertData] {
    (0..<count).map { _ in alert() }
  }

  /// Stops the run if a host still shows or holds an alert after a sample: every alert must
  /// have been presented and tapped by the time `show` returned or the producers were joined.
  static func checkIdle(_ host: AlertHost) {
    precondition(
      host.current == nil && host.pendingCount == 0,
      "an alert was left unanswered: current \(String(describing: host.current?.id)), "
        + "\(host.pendingCount) pending")
  }

  /// Shows every batch from a task of its own into a new host with `policy`, as the
  /// eight-producer case does, and stops the run unless every alert resolves as tapped.
  ///
  /// The measured case shows without a completion, which would add a resolution per alert;
  /// this check, run once before measuring, is what shows that none of them is dropped.
  static func checkEveryAlertIsTapped(batches: [[AlertData]], policy: PresentationPolicy) async {
    let host = AlertHost(policy: policy, presenter: TapFirst())
    let tally = OutcomeTally()
    await withTaskGroup(of: Void.self) { group in
      for batch in batches {
        group.addTask {
          for alert in batch {
            host.show(alert) { outcome in
              if outcome.tappedButton != nil {
                tally.tapped.add(1, ordering: .relaxed)
              } else {
                tally.others.add(1, ordering: .relaxed)
              }
            }
          }
        }
      }
    }
    let expected = batches.reduce(0) { $0 + $1.count }
    let tappedCount = tally.tapped.load(ordering: .relaxed)
    let otherCount = tally.others.load(ordering: .relaxed)
    precondition(
      tappedCount == expected && otherCount == 0,
      "of \(expected) alerts, \(tappedCount) were tapped and \(otherCount) resolved otherwise")
    checkIdle(host)
  }
}

/// How the alerts of ``AlertFixture/checkEveryAlertIsTapped(batches:policy:)`` resolved.
final class OutcomeTally: Sendable {
  /// Alerts resolved by a tap.
  let tapped = Atomic<Int>(0)
  /// Alerts resolved any other way.
  let others = Atomic<Int>(0)
}
