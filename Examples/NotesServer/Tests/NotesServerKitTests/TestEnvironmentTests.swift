import HummingbirdTesting
import Milieu
import MilieuTesting
import NotesServerKit
import Testing

/// An app built inside `withTestEnvironment` takes the test's store and `notify` action, while
/// other apps, in this test and in the tests that run beside it, keep their own.
@Suite("Test environments")
struct TestEnvironmentTests {
  @Test func anAppBuiltInATestEnvironmentUsesItsStoreAndAction() async throws {
    let alice = try AuthenticatedUser(headerValue: "alice")
    let seeded = NotesStore()
    let seededNote = seeded.add(NoteDraft(title: "Seeded", text: "by the test"), owner: alice)
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
    #expect(seeded.notes(of: alice).map(\.title) == ["Seeded", "New"])
  }

  @Test func appsInParallelTestEnvironmentsKeepTheirOwnStoresAndActions() async throws {
    let recorders = (0..<8).map { _ in NotificationRecorder() }
    let stores = (0..<8).map { _ in NotesStore() }
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
          }
        }
      }
      try await group.waitForAll()
    }
    let sharedUser = try AuthenticatedUser(headerValue: "shared-user")
    for index in 0..<8 {
      let titles = stores[index].notes(of: sharedUser).map(\.title)
      #expect(titles == (0..<5).map { "app \(index) note \($0)" })
      #expect(recorders[index].notifications.count == 5)
    }
  }
}
