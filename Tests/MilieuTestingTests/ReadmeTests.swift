import Milieu
import MilieuAlerts
import MilieuTesting
import Testing

// README: begin
struct NoteService {
  @Environment(\.showAlert) var showAlert

  func confirmDelete(_ count: Int) async -> Bool {
    let outcome = await showAlert.ask(
      title: "Delete \(count) notes?",
      buttons: [.destructive("Delete"), .cancel()])
    return outcome.tappedButton?.role == .destructive
  }
}

@Test func deletingAsksFirst() async throws {
  try await withAlertRecorder { alerts in
    let answer = Task { await NoteService().confirmDelete(3) }
    let alert = try await alerts.next()
    #expect(alert.title == "Delete 3 notes?")
    try await alerts.tap("Delete")
    #expect(await answer.value)
  }
}
// README: end
