import Milieu
import MilieuAlerts
import MilieuTesting
import Testing

@testable import MainActorApp

// README's alert test, unchanged, in a test target whose code defaults to the main actor.
@Test func deletingAsksFirst() async throws {
  try await withAlertRecorder { alerts in
    let answer = Task { await NoteService().confirmDelete(3) }
    let alert = try await alerts.next()
    #expect(alert.title == "Delete 3 notes?")
    try await alerts.tap("Delete")
    #expect(await answer.value)
  }
}

@Test func theFirstExamplePrintsWhatTheReadmeSays() {
  var printed: [String] = []
  runFirstExample { printed.append("\($0)") }
  #expect(printed == ["Bonjour, Ada!", "Bonjour, Ada!", "Hi, Ada!"])
}

@Test func theServiceGraphPrintsWhatTheReadmeSays() {
  var printed: [String] = []
  runServiceGraph { printed.append("\($0)") }
  #expect(
    printed == [
      "https://api.example.com", "https://beta.example.com", "true", "https://beta.example.com",
    ])
}

@Test func aKeyInSwiftUIsFormWorksOnTheMainActor() {
  var printed: [String] = []
  runRequestTimeout { printed.append("\($0)") }
  #expect(printed == ["30.0 seconds", "90.0 seconds"])
}
