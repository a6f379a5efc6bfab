import NotesServerKit
import SQLiteNIO
import Testing

/// What the SQLite store keeps: every character of a note as it was written.
@Suite("The SQLite store")
struct SQLiteNotesStoreTests {
  /// Text is read back by its length, not as a C string: a note that reached the file holding
  /// a NUL (written by an earlier server, or by another program) comes back whole.
  @Test func aNoteIsReadBackWholeWhateverItHolds() async throws {
    try await withStore(.sqlite) { made in
      let alice = try AuthenticatedUser(headerValue: "alice")
      let added = try await made.store.add(
        NoteDraft(title: "t\u{0}itle", text: "keep this\u{0}and this"), owner: alice)
      #expect(added.text == "keep this\u{0}and this")
      #expect(added.title == "t\u{0}itle")
      let read = try await made.store.notes(of: alice)
      #expect(read.map(\.text) == ["keep this\u{0}and this"])
      #expect(read.map(\.title) == ["t\u{0}itle"])
      #expect(try await made.store.remove(id: added.id, owner: alice)?.text == added.text)
    }
  }
}
