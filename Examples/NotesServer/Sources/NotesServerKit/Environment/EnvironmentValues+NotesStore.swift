import Milieu

extension EnvironmentValues {
  static let notesStore = Entry<any NotesStore>(UnsetNotesStore())

  /// Where the notes live: an ``SQLiteNotesStore`` or a ``PostgresNotesStore``, as the command
  /// line chose, or a test's own.
  ///
  /// The app node sets the server's store. The default is a store that refuses every call with
  /// a message that says to set one.
  ///
  /// ```swift
  /// app.set(\.notesStore, to: SQLiteNotesStore(path: "notes.sqlite"))
  /// ```
  public var notesStore: any NotesStore {
    get { self[Self.notesStore] }
    set { self[Self.notesStore] = newValue }
  }
}

/// The store a node sees when none was set: every call fails, saying so.
private final class UnsetNotesStore: NotesStore {
  let deletionTokens = DeletionTokens()
  var description: String { "the notes store" }
  private var unset: NotesStoreError {
    NotesStoreError(
      store: self,
      "none is set: set `notesStore` on the app node to an SQLiteNotesStore or a"
        + " PostgresNotesStore")
  }
  func start() async throws(NotesStoreError) { throw unset }
  func stop() async {}
  func notes(of owner: AuthenticatedUser) async throws(NotesStoreError) -> [Note] { throw unset }
  func add(_ draft: NoteDraft, owner: AuthenticatedUser) async throws(NotesStoreError) -> Note {
    throw unset
  }
  func remove(id: Int, owner: AuthenticatedUser) async throws(NotesStoreError) -> Note? {
    throw unset
  }
  func removeAll(of owner: AuthenticatedUser) async throws(NotesStoreError) -> Int { throw unset }
  func count() async throws(NotesStoreError) -> Int { throw unset }
}
