import Hummingbird
import HummingbirdTesting
import NotesServerKit
import Testing

@Suite("The notes routes")
struct NotesRoutesTests {
  @Test(arguments: StoreKind.all) func listingStartsEmpty(store: StoreKind) async throws {
    try await withNotesApp(store) { client, app in
      let response = try await client.send(.get, "/notes", as: "alice")
      #expect(response.status == .ok)
      #expect(try response.json(NoteList.self).notes == [])
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(arguments: StoreKind.all) func creatingANoteReturnsItListsItAndNotifies(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      let created = try await client.send(
        .post, "/notes", as: "alice", body: #"{"title": "Standup", "text": "9:30"}"#)
      #expect(created.status == .created)
      let note = try created.json(Note.self)
      #expect(note == Note(id: note.id, title: "Standup", text: "9:30", owner: "alice"))

      let listed = try await client.send(.get, "/notes", as: "alice")
      #expect(try listed.json(NoteList.self).notes == [note])
      #expect(app.notifications.notifications == [.created(note)])
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(arguments: StoreKind.all) func textIsOptional(store: StoreKind) async throws {
    try await withNotesApp(store) { client, _ in
      let created = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "T"}"#)
      #expect(created.status == .created)
      #expect(try created.json(Note.self).text == "")
    }
  }

  @Test(arguments: StoreKind.all) func usersSeeOnlyTheirOwnNotes(store: StoreKind) async throws {
    try await withNotesApp(store) { client, app in
      let note = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Mine"}"#)
        .json(Note.self)
      let bobsList = try await client.send(.get, "/notes", as: "bob")
      #expect(try bobsList.json(NoteList.self).notes == [])

      let bobDeletes = try await client.send(.delete, "/notes/\(note.id)", as: "bob")
      #expect(bobDeletes.status == .notFound)
      #expect(try bobDeletes.apiError().message == "bob has no note \(note.id)")
      #expect(try await app.store.notes(of: try AuthenticatedUser(headerValue: "alice")) == [note])
    }
  }

  @Test(arguments: StoreKind.all) func deletingANoteRemovesItAndNotifies(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      let note = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Old"}"#)
        .json(Note.self)
      let deleted = try await client.send(.delete, "/notes/\(note.id)", as: "alice")
      #expect(deleted.status == .noContent)
      #expect(deleted.body.readableBytes == 0)
      #expect(try await client.send(.get, "/notes", as: "alice").json(NoteList.self).notes == [])
      #expect(app.notifications.notifications == [.created(note), .deleted(note)])
    }
  }

  @Test(arguments: StoreKind.all) func deletingAllNotesTakesATokenThatWorksOnce(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      for title in ["One", "Two", "Three"] {
        _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "\#(title)"}"#)
      }
      _ = try await client.send(.post, "/notes", as: "bob", body: #"{"title": "Bob's"}"#)

      let issued = try await client.send(.post, "/notes/deletion-token", as: "alice")
      #expect(issued.status == .created)
      let token = try issued.json(DeletionTokenResponse.self)
      #expect(token.expiresInSeconds == 60)
      #expect(token.token.count == 32)

      let deleted = try await client.send(.delete, "/notes?confirm=\(token.token)", as: "alice")
      #expect(deleted.status == .ok)
      #expect(try deleted.json(DeletedAllResponse.self) == DeletedAllResponse(deleted: 3))
      #expect(app.notifications.notifications.last == .deletedAll(owner: "alice", count: 3))
      #expect(try await client.send(.get, "/notes", as: "alice").json(NoteList.self).notes == [])
      #expect(try await client.send(.get, "/notes", as: "bob").json(NoteList.self).notes.count == 1)

      let again = try await client.send(.delete, "/notes?confirm=\(token.token)", as: "alice")
      #expect(again.status == .forbidden)
    }
  }

  @Test(arguments: StoreKind.all) func whoAmIAnswersWithTheRequestsUserAndID(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      let first = try await client.send(.get, "/me", as: "alice").json(WhoAmIResponse.self)
      let second = try await client.send(.get, "/me", as: "alice").json(WhoAmIResponse.self)
      #expect(first.user == "alice")
      #expect(!first.requestID.isEmpty)
      #expect(first.requestID != second.requestID)
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(arguments: StoreKind.all) func servicesAndTheLiveNotifyLogWithTheRequestsMetadata(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store, notify: .logging) { client, app in
      let me = try await client.send(.get, "/me", as: "carol").json(WhoAmIResponse.self)
      _ = try await client.send(.post, "/notes", as: "carol", body: #"{"title": "Logged"}"#)
      let entries = app.logs.entries.filter { $0.metadata["user"] != nil }
      #expect(
        entries.map(\.message.description) == [
          "created note 1", #"notify: carol created note 1, "Logged""#,
        ])
      for entry in entries {
        #expect(entry.metadata["user"] == "carol")
        #expect(entry.metadata["request.id"] != nil)
        #expect(entry.metadata["request.id"] != .string(me.requestID))
      }
    }
  }
}
