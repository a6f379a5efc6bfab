import Milieu
import MilieuAlerts
import MilieuTerminal

/// The library: its folders, backups, and the share sheet.
struct LibraryService {
  @Environment(\.showAlert) var showAlert
  @Environment(\.showToast) var showToast
  @Environment(\.toastDuration) var toastDuration
  @Environment(\.notesStore) var store
  @Environment(\.terminal) var terminal
  @Environment(\.console) var console

  /// The folder "Work".
  let work: FolderService

  /// Creates the library and its folder below the current node.
  init() {
    let folderNode = EnvironmentNode.current.child("folder: Work") { $0.syncAttempts = 3 }
    work = folderNode.withCurrent { FolderService(name: "Work") }
  }

  /// Asks whether to back up now; part of the `burst` scenario.
  func remindAboutBackup(completion: @escaping @Sendable (AlertOutcome) -> Void) {
    let alert = AlertData(
      title: "Back up your library?", message: "The last backup finished 3 days ago.",
      buttons: [.default("Back Up Now"), .cancel("Later")])
    showAlert.showReporting(alert, to: console, completion: completion)
  }

  /// Says the library has synced, and calls `completion` with the outcome once it is answered;
  /// part of the `burst` scenario.
  func announceSync(completion: @escaping @Sendable (AlertOutcome) -> Void) {
    let alert = AlertData(
      title: "Synced with your other devices",
      message: "Three services have news at once: their alerts queue, the most urgent first.")
    showAlert.showReporting(alert, to: console, completion: completion)
  }

  /// Says the library is open; part of the `toast` scenario.
  func toastOpened() {
    showToast("Library opened: 5 notes in 1 folder", style: .info, duration: toastDuration)
  }

  /// The share sheet for a note: a node below the library with an alert host of its own, and
  /// the sheet's service created in it.
  func makeShareSheet(
    for noteTitle: String
  ) -> (node: EnvironmentNode, host: AlertHost, service: ShareSheetService) {
    let node = $showAlert.node.child("sheet: Share")
    let host = node.installAlertHost(presenter: TerminalAlertPresenter(terminal: terminal))
    let service = node.withCurrent {
      ShareSheetService(noteTitle: noteTitle, recipient: "sam@example.com")
    }
    return (node, host, service)
  }

  /// The `sheet` scenario: the sheet's alert goes to the sheet's host, and the library's own
  /// alert afterwards to the app's host.
  func shareRoadmap() async {
    let sheet = makeShareSheet(for: "Roadmap")
    let recipient = await sheet.service.confirmSharing()
    console.writeLine("Library: showAlert reaches \($showAlert.node.alertHostProvenance).")
    let alert =
      recipient.map {
        AlertData(
          title: "Sharing is on for \"Roadmap\"", message: "\($0) can read and edit it.")
      } ?? AlertData(title: "\"Roadmap\" is not shared")
    _ = await showAlert.askReporting(alert, to: console)
  }
}
