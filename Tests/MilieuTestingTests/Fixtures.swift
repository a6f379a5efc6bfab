import Milieu
import MilieuAlerts
import Synchronization

extension EnvironmentValues {
  static let retryLimit = Entry(3)
  var retryLimit: Int {
    get { self[Self.retryLimit] }
    set { self[Self.retryLimit] = newValue }
  }
}

/// A small service that shows alerts the way app code does: through the environment.
final class Session: Sendable {
  private let showAlert = Environment(\.showAlert)
  private let signingIn = Atomic<Bool>(false)

  var isSigningIn: Bool { signingIn.load(ordering: .relaxed) }

  /// Shows an alert with a message, no cancel button and two other buttons.
  func expire() {
    showAlert.wrappedValue(
      title: "Expected Title", message: "expected message",
      buttons: [
        .default("Ok"),
        .default("Sign In") { self.signingIn.store(true, ordering: .relaxed) },
      ])
  }

  func confirmSignOut() async -> Bool {
    let outcome = await showAlert.wrappedValue.ask(
      title: "Sign out?", buttons: [.destructive("Sign Out"), .cancel()])
    return outcome.tappedButton?.role == .destructive
  }
}
