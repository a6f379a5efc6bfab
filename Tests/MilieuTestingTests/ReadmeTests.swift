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

actor NotesDatabase: LifecycleService {
  let url: String
  private(set) var isOpen = false
  init(url: String) { self.url = url }

  func start() async throws { isOpen = true }  // connect
  func stop() async throws { isOpen = false }  // close
}

extension EnvironmentValues {
  static let databaseURL = Entry("postgres://db.internal/notes")
  var databaseURL: String {
    get { self[Self.databaseURL] }
    set { self[Self.databaseURL] = newValue }
  }

  static let notesDatabase = Derived { values in NotesDatabase(url: values.databaseURL) }
  var notesDatabase: NotesDatabase { self[Self.notesDatabase] }
}

@Test func theDatabaseRunsWhileTheTestDoes() async throws {
  try await withRunningServices([\.notesDatabase], .set(\.databaseURL, "sqlite::memory:")) {
    let database = EnvironmentNode.current[\.notesDatabase]
    #expect(database.url == "sqlite::memory:")
    #expect(await database.isOpen)
  }
}

@Test func theServiceGraphHolds() async throws {
  try await withTestEnvironment(.set(\.databaseURL, "sqlite::memory:")) {
    // Every service builds, has a value for tests, starts and stops: all problems at once.
    try await EnvironmentNode.current.checkServices([\.notesDatabase], forTests: true)
  }
}
// README: end
