// What the block of the `MilieuTesting` landing page uses and does not declare; see
// scripts/article-blocks.py.
import Milieu
import MilieuAlerts
import Synchronization

/// A session that asks the user to sign in again when it expires.
final class Session: Sendable {
  /// Read where it is made: a `Sendable` class cannot hold an `@Environment` wrapper.
  let showAlert = EnvironmentNode.current[\.showAlert]
  private let signingIn = Atomic(false)

  var isSigningIn: Bool { signingIn.load(ordering: .relaxed) }

  func expire() {
    showAlert(
      title: "Session expired",
      buttons: [
        .default("OK"), .default("Sign In") { self.signingIn.store(true, ordering: .relaxed) },
      ])
  }
}
