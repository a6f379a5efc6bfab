// What the blocks of *Presenting alerts in a terminal* use and do not declare; see
// scripts/article-blocks.py.
import Milieu
import MilieuAlerts

/// The notes a folder service deletes, and those selected.
final class NoteStore: Sendable {
  func delete(_ notes: [String]) async {}
}
let store = NoteStore()
let selection = ["Standup", "Offsite", "Budget"]

/// The action and the alert that the console block shows, at the top level.
let showAlert = EnvironmentValues().showAlert
let alert = AlertData(
  title: "Delete 3 notes?", message: "This cannot be undone.",
  buttons: [.destructive("Delete"), .cancel()])
