import HummingbirdTesting
import Milieu
import MilieuTesting
import NotesServerKit
import Testing

/// An app built inside `withTestEnvironment` takes the test's store and `notify` action, while
/// other apps, in this test and in the tests that run beside it, keep their own. No test
/// overrides `notesService`: each gets one built on its own store and action, because the
/// service is derived from them.
@Suite("Test environments")
struct TestEnvironmentTests {
  @Test(arguments: StoreKind.all)
  func anAppBuiltInATestEnvironmentUsesItsStoreAndAction(store kind: StoreKind) async throws {
    let alice = try AuthenticatedUser(headerValue: "alice")
    try await withStore(kind) { made in
      let seeded = made.store
      let seededNote = try await seeded.add(
        NoteDraft(title: "Seeded", text: "by the test"), owner: alice)
      let recorder = NotificationRecorder()

      try await withTestEnvironment(.set(\.notesStore, seeded), .set(\.notify, recorder.action)) {
        try await NotesApplication.make().test(.router) { client in
          let listed = try await client.send(.get, "/notes", as: "alice").json(NoteList.self)
          #expect(listed.notes == [seededNote])
          let created = try await client.send(
            .post, "/notes", as: "alice", body: #"{"title": "New"}"#
          )
          .json(Note.self)
          #expect(recorder.notifications == [.created(created)])
        }
      }
      #expect(try await seeded.notes(of: alice).map(\.title) == ["Seeded", "New"])
    }
  }

  @Test(arguments: StoreKind.all)
  func theServiceATestGetsIsBuiltOnItsStoreAndAction(store kind: StoreKind) async throws {
    try await withStore(kind) { made in try await serviceIsBuiltOnItsStore(made.store) }
  }

  private func serviceIsBuiltOnItsStore(_ store: any NotesStore) async throws {
    let recorder = NotificationRecorder()
    let outside = EnvironmentNode.current[\.notesService]
    try await withTestEnvironment(.set(\.notesStore, store), .set(\.notify, recorder.action)) {
      let service = EnvironmentNode.current[\.notesService]
      #expect(service !== outside)
      #expect(service.store === store)
      #expect(outside.store !== store)
      service.notify(.deletedAll(owner: "alice", count: 0))
      #expect(recorder.notifications == [.deletedAll(owner: "alice", count: 0)])
      // The requests of an app built here read that same service.
      let seen = SeenServices()
      let router = NotesApplication.makeRouter()
      DerivedServiceTests.addServiceProbe(to: router, seen: seen)
      try await NotesApplication.make(router: router).test(.router) { client in
        _ = try await client.send(.get, "/service", as: "alice")
      }
      #expect(seen.take().map(ObjectIdentifier.init) == [ObjectIdentifier(service)])
    }
  }

  @Test(arguments: StoreKind.all)
  func appsInParallelTestEnvironmentsKeepTheirOwnStoresAndActions(store kind: StoreKind)
    async throws
  {
    let recorders = (0..<8).map { _ in NotificationRecorder() }
    try await withStores(kind, count: 8) { made in
      let stores = made.map(\.store)
      let services = SeenServices()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<8 {
          group.addTask {
            try await withTestEnvironment(
              .set(\.notesStore, stores[index]), .set(\.notify, recorders[index].action)
            ) {
              try await NotesApplication.make().test(.router) { client in
                for note in 0..<5 {
                  let body = #"{"title": "app \#(index) note \#(note)"}"#
                  _ = try await client.send(.post, "/notes", as: "shared-user", body: body)
                }
              }
              let service = EnvironmentNode.current[\.notesService]
              #expect(service.store === stores[index])
              services.remember(service)
            }
          }
        }
        try await group.waitForAll()
      }
      let sharedUser = try AuthenticatedUser(headerValue: "shared-user")
      for index in 0..<8 {
        let titles = try await stores[index].notes(of: sharedUser).map(\.title)
        #expect(titles == (0..<5).map { "app \(index) note \($0)" })
        #expect(recorders[index].notifications.count == 5)
      }
      #expect(Set(services.take().map(ObjectIdentifier.init)).count == 8)
    }
  }
}

/// The app's service graph, checked in one call before anything serves: the notes service and
/// the store it reads, built, started and stopped, with every problem reported at once.
@Suite("The service graph")
struct ServiceGraphTests {
  @Test(arguments: StoreKind.all)
  func theNotesServiceAndItsStoreBuildStartAndStop(store kind: StoreKind) async throws {
    try await withStore(kind, start: false) { made in
      try await withTestEnvironment(.set(\.notesStore, made.store)) {
        try await EnvironmentNode.current.checkServices([\.notesService], forTests: true)
      }
    }
  }

  @Test(arguments: StoreKind.all)
  func theStoreRunsWhileTheTestDoesAndIsStoppedAfter(store kind: StoreKind) async throws {
    let ada = try AuthenticatedUser(headerValue: "ada")
    // Not started: the graph starts it, as the service reads it.
    try await withStore(kind, start: false) { made in
      try await withRunningServices([\.notesService], .set(\.notesStore, made.store)) {
        let service = EnvironmentNode.current[\.notesService]
        let caller = NotesCaller(user: ada, logger: EnvironmentNode.current[\.logger])
        let note = try await service.create(NoteDraft(title: "while running"), for: caller)
        #expect(try await service.notes(for: caller) == [note])
      }
      await #expect(throws: NotesStoreError.self, "stopped when the test's body returned") {
        _ = try await made.store.count()
      }
    }
  }

  @Test func aStoreThatCannotStartIsReportedWithThePathToIt() async throws {
    let store = SQLiteNotesStore(path: "/nonexistent-folder/notes.sqlite")
    await #expect {
      try await withTestEnvironment(.set(\.notesStore, store)) {
        try await EnvironmentNode.current.checkServices([\.notesService], forTests: true)
      }
    } throws: { error in
      let description = "\(error)"
      return description.contains("notesService → notesStore")
        && description.contains("the SQLite notes store at /nonexistent-folder/notes.sqlite")
    }
  }
}
