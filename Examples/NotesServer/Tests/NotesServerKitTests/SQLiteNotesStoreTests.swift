import NotesServerKit
import SQLiteNIO
import Testing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the SQLite store keeps, and where: every character of a note as it was written, in a
/// file only its owner can read.
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

  /// The file, and its write-ahead log, are created readable and writable by their owner
  /// alone: notes are no other user's business.
  @Test func itsFileIsCreatedForItsOwnerOnly() async throws {
    try await withStore(.sqlite) { made in
      _ = try await made.store.add(
        NoteDraft(title: "Private"), owner: AuthenticatedUser(headerValue: "alice"))
      for path in [made.location, made.location + "-wal", made.location + "-shm"] {
        var status = stat()
        #expect(stat(path, &status) == 0, "no \(path)")
        let mode = status.st_mode & 0o777
        #expect(mode == 0o600, "\(path) has mode \(String(mode, radix: 8))")
      }
    }
  }

  /// A file that exists keeps the permissions its owner gave it.
  @Test func anExistingFileKeepsItsMode() async throws {
    try await withStore(.sqlite, start: false) { made in
      #expect(FileManager.default.createFile(atPath: made.location, contents: nil))
      #expect(chmod(made.location, 0o640) == 0)
      try await made.store.start()
      var status = stat()
      #expect(stat(made.location, &status) == 0)
      #expect(status.st_mode & 0o777 == 0o640)
    }
  }

  /// What SQLite would open as a database in memory, or by a URI's own rules, is refused
  /// before anything opens: the store keeps notes in a file, as its path promises.
  @Test(arguments: [":memory:", "file:notes.sqlite", "file::memory:?cache=shared", ""])
  func aNameSQLiteWouldNotTakeAsAPathIsRefused(path: String) async throws {
    let store = SQLiteNotesStore(path: path, logger: TestStore.quiet)
    do {
      try await store.start()
      await store.stop()
      Issue.record("'\(path)' was opened")
    } catch {
      #expect(error.reason.hasPrefix("'\(path)' is not the path of a file"), "\(error)")
    }
  }
}
