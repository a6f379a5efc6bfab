import Dependencies
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import NotesServerKit
import NotesServerWithDependenciesKit
import Testing

/// Runs a test against a fresh swift-dependencies notes app, through HummingbirdTesting's
/// router client: its dependencies set around the app as the executable sets them, with a
/// store and a log of the test's own.
///
/// - Parameters:
///   - kind: The kind of store the app keeps its notes in; a fresh one.
///   - notify: The app's `notify` action; by default one that records.
///   - body: The test, given the client, the store, what `notify` sent and what was logged.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or what starting the app throws.
func withDependenciesNotesApp<Result: Sendable>(
  _ kind: StoreKind,
  notify: NotifyAction? = nil,
  _ body:
    @Sendable (any TestClientProtocol, any NotesStore, NotificationRecorder, InMemoryLogHandler)
    async throws -> Result
) async throws -> Result {
  let logs = InMemoryLogHandler()
  var logger = Logger(label: "NotesServerTests.dependencies") { _ in logs }
  logger.logLevel = .trace
  let notifications = NotificationRecorder()
  let configuration = NotesConfiguration()
  return try await withStore(kind) { made in
    let store = made.store
    return try await withDependencies {
      $0.notesConfiguration = configuration
      $0.logger = logger
      $0.notesService = NotesService(
        store: store, clock: ContinuousClock(), notify: notify ?? notifications.action,
        deletionTokenLifetime: configuration.deletionTokenLifetime)
    } operation: {
      try await DependenciesApplication.make().test(.router) { client in
        try await body(client, store, notifications, logs)
      }
    }
  }
}

/// The swift-dependencies server, the third that `load.sh` measures, is the same server too.
@Suite("The swift-dependencies variant")
struct DependenciesApplicationTests {
  @Test(arguments: StoreKind.all) func itAnswersEveryRequestAsMilieusServerDoes(store: StoreKind)
    async throws
  {
    let milieuAnswers = try await withNotesApp(store) { client, _ in
      try await HandWiredApplicationTests.session(client)
    }
    let dependenciesAnswers = try await withDependenciesNotesApp(store) { client, _, _, _ in
      try await HandWiredApplicationTests.session(client)
    }
    #expect(dependenciesAnswers == milieuAnswers)
  }

  @Test(arguments: StoreKind.all)
  func twoHundredUsersCreatingAtOnceEachFindOnlyTheirOwnNote(store kind: StoreKind) async throws {
    try await withDependenciesNotesApp(kind) { client, store, notifications, _ in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<200 {
          group.addTask {
            let user = "writer-\(index)"
            let created = try await client.send(
              .post, "/notes", as: user, body: #"{"title": "note of \#(user)"}"#)
            #expect(created.status == .created)
            let listed = try await client.send(.get, "/notes", as: user).json(NoteList.self)
            #expect(listed.notes.map(\.title) == ["note of \(user)"])
            let me = try await client.send(.get, "/me", as: user).json(WhoAmIResponse.self)
            #expect(me.user == user)
          }
        }
        try await group.waitForAll()
      }
      #expect(try await store.count() == 200)
      #expect(notifications.notifications.count == 200)
    }
  }

  @Test(arguments: StoreKind.all)
  func theLiveNotifyLogsWithTheRequestsLogger(store: StoreKind) async throws {
    try await withDependenciesNotesApp(store, notify: .loggingWithDependencies) {
      client, _, _, logs in
      _ = try await client.send(.post, "/notes", as: "carol", body: #"{"title": "Logged"}"#)
      let entries = logs.entries.filter { $0.metadata["user"] != nil }
      #expect(
        entries.map(\.message.description) == [
          "created note 1", #"notify: carol created note 1, "Logged""#,
        ])
      #expect(entries.allSatisfy { $0.metadata["user"] == "carol" })
      #expect(entries.allSatisfy { $0.metadata["request.id"] != nil })
    }
  }
}
