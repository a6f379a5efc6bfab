import Milieu
import MilieuAlerts
import MilieuTesting

/// Alerts and toasts: a host whose presenter answers at once, so one `show` runs a whole round
/// trip, and the test recorder. The alert is made once: a showing that is answered may be shown
/// again.
enum AlertCases {
  /// Taps an alert's first button the moment it is presented.
  struct TapFirst: Presenter {
    func present(_ alert: AlertData, in host: AlertHost) {
      try? host.tap(alert.buttons[0], of: alert)
    }

    func withdraw(_: AlertData, from _: AlertHost) {}
  }

  /// Types into an alert's one text field and taps its first button the moment it is presented.
  struct TypeAndTapFirst: Presenter {
    func present(_ alert: AlertData, in host: AlertHost) {
      try? host.tap(alert.buttons[0], of: alert, texts: ["Groceries"])
    }

    func withdraw(_: AlertData, from _: AlertHost) {}
  }

  /// Shows toasts and leaves them to expire.
  struct LeaveToExpire: Presenter {
    func present(_: Toast, in _: ToastHost) {}
    func withdraw(_: Toast, from _: ToastHost) {}
  }

  /// A clock whose every sleep ends at once: a toast expires as soon as its timer task runs.
  struct ImmediateClock: Clock {
    struct Instant: InstantProtocol {
      var offset: Duration
      func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
      func duration(to other: Instant) -> Duration { other.offset - offset }
      static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .zero }
    func sleep(until _: Instant, tolerance _: Duration?) async throws {}
  }

  /// An alert such as an application shows: a title, a message, a destructive button and a
  /// cancel button, none with an action.
  static let alert = AlertData(
    title: "Delete 3 notes?", message: "This cannot be undone.",
    buttons: [.destructive("Delete"), .cancel()])

  /// An alert that asks for a name, in one text field.
  static let rename = AlertData(
    title: "Rename note", textFields: [AlertTextField("Name", text: "Roadmap")],
    buttons: [.default("Rename"), .cancel()])

  struct NoteService {
    @Environment(\.showAlert) var showAlert
  }

  static let all: [CountedCase] = [
    CountedCase("alert: present → tap → outcome, through AlertHost") { iterations in
      let host = AlertHost(presenter: TapFirst())
      for _ in 0..<iterations { host.show(alert) { blackHole($0) } }
    },
    CountedCase("alert: present → type into a field → tap → outcome, through AlertHost") {
      iterations in
      let host = AlertHost(presenter: TypeAndTapFirst())
      for _ in 0..<iterations { host.show(rename) { blackHole($0) } }
    },
    // One alert shown and 8 waiting, throughout: each iteration shows an alert and answers the
    // one shown, so that the next becomes current.
    CountedCase("alert: normal priority, enqueued behind 8 waiting, then the shown one answered") {
      iterations in
      let host = AlertHost()
      let alerts = (0..<10).map { AlertData(title: "Alert \($0)") }
      for alert in alerts.prefix(9) { host.show(alert) }
      for index in 0..<iterations {
        host.show(alerts[(index + 9) % 10])
        try? host.dismiss(alerts[index % 10])
      }
    },
    CountedCase("alert: high priority, enqueued ahead of 8 waiting, then the shown one answered") {
      iterations in
      let host = AlertHost()
      let waiting = (0..<9).map { AlertData(title: "Waiting \($0)") }
      for alert in waiting { host.show(alert) }
      let urgent = (0..<2).map { AlertData(title: "Urgent \($0)", priority: .high) }
      var shown = waiting[0]
      for index in 0..<iterations {
        let next = urgent[index % 2]
        host.show(next)
        try? host.dismiss(shown)
        shown = next
      }
    },
    CountedCase("alert: present → tap, fire and forget, through AlertHost") { iterations in
      let host = AlertHost(presenter: TapFirst())
      for _ in 0..<iterations { host.show(alert) }
    },
    CountedCase("alert: present → tap, fire and forget, through @Environment(\\.showAlert)") {
      iterations in
      let app = EnvironmentNode("app")
      app.installAlertHost(presenter: TapFirst())
      let service = app.child("feature").withCurrent { NoteService() }
      for _ in 0..<iterations { service.showAlert(alert) }
    },
    CountedCase("toast: shown and expired, awaited through ShowToastAction") { iterations in
      let host = ToastHost(presenter: LeaveToExpire(), clock: ImmediateClock())
      let showToast = ShowToastAction(host: host)  // holds the host weakly
      let toast = Toast("Saved")
      for _ in 0..<iterations { blackHole(await showToast.ask(toast)) }
      blackHole(host)
    },
    CountedCase("AlertRecorder: next + tap") { iterations in
      let app = EnvironmentNode("app")
      let recorder = app.installAlertRecorder()
      let service = app.withCurrent { NoteService() }
      for _ in 0..<iterations {
        service.showAlert(alert)
        do {
          blackHole(try await recorder.next())
          try await recorder.tap("Delete")
        } catch {
          fatalError("\(error)")
        }
      }
    },
  ]
}
