import Milieu
import MilieuAlerts
import MilieuTerminal

/// One folder of the library and the note the demo works with.
struct FolderService {
  @Environment(\.showAlert) var showAlert
  @Environment(\.showToast) var showToast
  @Environment(\.toastDuration) var toastDuration
  @Environment(\.notesStore) var store
  @Environment(\.console) var console

  /// The folder's name.
  let name: String
  /// The note "Roadmap".
  let roadmap: NoteService

  /// Creates the folder and its note below the current node.
  init(name: String) {
    self.name = name
    let noteNode = EnvironmentNode.current.child("note: Roadmap")
    roadmap = noteNode.withCurrent { NoteService(title: "Roadmap") }
  }

  /// The `delete` scenario: asks before deleting the selected notes; the destructive button's
  /// action deletes them.
  func deleteSelection() async -> AlertOutcome {
    let titles = await store.selection(in: name)
    let (store, console, name) = (store, console, name)
    let alert = AlertData(
      title: "Delete \(titles.count) notes?",
      message: "\(Self.list(titles)) will be removed from \(name). This cannot be undone.",
      buttons: [
        .destructive("Delete") {
          let left = await store.delete(titles, from: name)
          console.writeLine("Deleted \(titles.count) notes from \(name); \(left) left.")
        },
        .cancel(),
      ])
    return await showAlert.askReporting(alert, to: console)
  }

  /// Warns that the folder is almost full; part of the `burst` scenario.
  func warnAboutSpace(completion: @escaping @Sendable (AlertOutcome) -> Void) {
    let alert = AlertData(
      title: "Folder \"\(name)\" is almost full", message: "It holds 5 of its 6 notes.")
    showAlert.showReporting(alert, to: console, completion: completion)
  }

  /// Says the folder is almost full; part of the `toast` scenario.
  func toastAlmostFull() {
    showToast("Folder \"\(name)\" is almost full", style: .warning, duration: toastDuration)
  }

  /// `"A", "B" and "C"`.
  private static func list(_ titles: [String]) -> String {
    let quoted = titles.map { "\"\($0)\"" }
    guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "No notes" }
    return quoted.dropLast().joined(separator: ", ") + " and " + last
  }
}
