import Milieu
import MilieuAlerts
import MilieuTerminal

/// One note: syncing it, and what happens to it on other devices.
actor NoteService {
  @Environment(\.showAlert) var showAlert
  @Environment(\.showToast) var showToast
  @Environment(\.toastDuration) var toastDuration
  @Environment(\.syncClient) var syncClient
  @Environment(\.console) var console

  /// The note's title.
  let title: String
  /// The node the service reads its environment from.
  nonisolated let node: EnvironmentNode
  private var attempts = 0
  private var lastError: SyncError?

  /// Creates the service for a note; its environment is the current node's.
  init(title: String) {
    self.title = title
    node = EnvironmentNode.current
  }

  /// The `retry` scenario: syncs the note; while it fails, an error alert offers Retry, whose
  /// action tries again, up to the sync client's `maximumAttempts` attempts in all.
  ///
  /// - Returns: Whether the note was synced.
  func sync() async -> Bool {
    let maximumAttempts = syncClient.maximumAttempts
    await attempt()
    while let error = lastError {
      guard attempts < maximumAttempts else {
        let alert = AlertData(
          title: "Could not sync \"\(title)\"",
          message: "\(error) Gave up after \(attempts) attempts.")
        _ = await showAlert.askReporting(alert, to: console)
        return false
      }
      let alert = AlertData(
        title: "Sync failed",
        message: "\(error) Attempt \(attempts) of \(maximumAttempts).",
        buttons: [.default("Retry") { await self.attempt() }, .cancel()])
      let outcome = await showAlert.askReporting(alert, to: console)
      guard outcome.tappedButton?.title == "Retry" else {
        console.writeLine("\"\(title)\" was not synced.")
        return false
      }
    }
    console.writeLine("\"\(title)\" synced on attempt \(attempts) of \(maximumAttempts).")
    return true
  }

  /// Prepares the question of which version of the note to keep, asked through the note's own
  /// `showAlert` when the returned function is called; part of the `burst` scenario. A conflict
  /// cannot wait: its high priority puts it ahead of the alerts already waiting. The alert has
  /// no cancel button, so end of input dismisses it.
  func conflictQuestion(
    completion: @escaping @Sendable (AlertOutcome) -> Void
  ) -> @Sendable () -> Void {
    let alert = AlertData(
      title: "\"\(title)\" changed on another device",
      message:
        "Keep this device's version, or use the other one? Shown last, with a high priority: "
        + "it goes ahead of the alerts that were waiting.",
      buttons: [.default("Keep Mine"), .default("Use Theirs")], priority: .high)
    let (showAlert, console) = (showAlert, console)
    return { showAlert.showReporting(alert, to: console, completion: completion) }
  }

  /// Says the note was saved; part of the `toast` scenario.
  func toastSaved() {
    showToast("\"\(title)\" saved", style: .success, duration: toastDuration)
  }

  private func attempt() async {
    attempts += 1
    do throws(SyncError) {
      try await syncClient.push(title)
      lastError = nil
    } catch {
      lastError = error
    }
  }
}
