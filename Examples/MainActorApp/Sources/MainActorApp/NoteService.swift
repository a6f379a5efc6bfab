import Milieu
import MilieuAlerts

// The README's service that asks before deleting, unchanged: `showAlert` comes from MilieuAlerts,
// whose declarations are nonisolated already.
struct NoteService {
  @Environment(\.showAlert) var showAlert

  func confirmDelete(_ count: Int) async -> Bool {
    let outcome = await showAlert.ask(
      title: "Delete \(count) notes?",
      buttons: [.destructive("Delete"), .cancel()])
    return outcome.tappedButton?.role == .destructive
  }
}
