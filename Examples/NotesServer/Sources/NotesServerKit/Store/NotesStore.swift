import Milieu

/// Where the notes live: the one protocol the server's stores share.
///
/// The server has two: ``SQLiteNotesStore``, an SQLite file, the default, which needs nothing
/// installed; and, in a build with the PostgreSQL trait, ``PostgresNotesStore``, a PostgreSQL
/// database through postgres-nio's `PostgresClient`. The app node holds the one the command line chose, as
/// `EnvironmentValues.notesStore`; tests set one of their own.
///
/// A store is a Milieu `LifecycleService`: ``start()`` opens it (a file, or a pool of
/// connections) and makes its table, logging when it begins and when it is ready; ``stop()``
/// closes it. The app node's `startServices([\.notesService])` starts it before the service
/// built on it, and stops it after. Each method is one statement, so a
/// change is kept whole or not at all; one that cannot reach the database throws
/// ``NotesStoreError``, which names the store and answers 503.
///
/// ```swift
/// let store = SQLiteNotesStore(path: "notes.sqlite")
/// try await store.start()
/// let note = try await store.add(NoteDraft(title: "Standup"), owner: alice)
/// try await store.notes(of: alice)  // [note]
/// try await store.stop()
/// ```
public protocol NotesStore: LifecycleService, AnyObject, CustomStringConvertible {
  /// The delete-all confirmation tokens issued for this store's notes.
  ///
  /// They live in the process, not in the database: a token is good for a minute, and a
  /// restart voids it.
  var deletionTokens: DeletionTokens { get }

  /// A user's notes, oldest first.
  ///
  /// - Parameter owner: Whose notes.
  /// - Returns: The notes.
  /// - Throws: ``NotesStoreError`` when the database cannot be reached.
  func notes(of owner: AuthenticatedUser) async throws(NotesStoreError) -> [Note]

  /// Adds a note.
  ///
  /// - Parameters:
  ///   - draft: The note's title and text.
  ///   - owner: Whose note it is.
  /// - Returns: The note, with its new id.
  /// - Throws: ``NotesStoreError`` when the database cannot be reached; nothing is kept.
  func add(_ draft: NoteDraft, owner: AuthenticatedUser) async throws(NotesStoreError) -> Note

  /// Removes one of a user's notes.
  ///
  /// - Parameters:
  ///   - id: The note's id.
  ///   - owner: Whose note it must be.
  /// - Returns: The removed note, or `nil` if the user has no note with that id.
  /// - Throws: ``NotesStoreError`` when the database cannot be reached; nothing is removed.
  func remove(id: Int, owner: AuthenticatedUser) async throws(NotesStoreError) -> Note?

  /// Removes all of a user's notes.
  ///
  /// - Parameter owner: Whose notes.
  /// - Returns: How many were removed.
  /// - Throws: ``NotesStoreError`` when the database cannot be reached; nothing is removed.
  func removeAll(of owner: AuthenticatedUser) async throws(NotesStoreError) -> Int

  /// The number of notes of every user together.
  ///
  /// - Returns: The number.
  /// - Throws: ``NotesStoreError`` when the database cannot be reached.
  func count() async throws(NotesStoreError) -> Int
}

/// A store that could not do what it was asked: it is not started, or its database could not
/// be reached or refused the statement.
///
/// Its description names the store and what went wrong; a request that meets one is answered
/// 503 with that message, and the server logs it.
///
/// ```swift
/// throw NotesStoreError(store: self, "cannot reach the database: connection refused")
/// ```
public struct NotesStoreError: Error, CustomStringConvertible {
  /// The store, as its description names it, such as `the SQLite notes store at notes.sqlite`.
  public let store: String
  /// What went wrong.
  public let reason: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - store: The store that failed.
  ///   - reason: What went wrong.
  public init(store: some NotesStore, _ reason: String) {
    self.store = store.description
    self.reason = reason
  }

  /// The store and what went wrong, in one line.
  public var description: String { "\(store): \(reason)" }

  /// The error as the client gets it: 503, naming the store, asking to try again later.
  public var apiError: APIError {
    APIError(
      status: .serviceUnavailable, message: "\(description); nothing was changed, try again later")
  }
}
