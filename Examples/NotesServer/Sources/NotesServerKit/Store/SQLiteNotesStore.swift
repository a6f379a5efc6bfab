import Logging
import NIOCore
import SQLiteNIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The notes in an SQLite file: the server's default store, which needs nothing installed.
///
/// It keeps one connection, opened by ``start()`` and closed by ``stop()``, which sqlite-nio
/// runs on NIO's thread pool. The file is in write-ahead-log mode, so that readers do not wait
/// for a writer; a statement that finds the file locked by another process waits up to
/// ``busyTimeout`` and then fails with a ``NotesStoreError``. A file it creates is readable and
/// writable by its owner alone (mode 0600), and so are its write-ahead log and shared memory,
/// which SQLite creates with the file's mode; a file that exists keeps the mode it has.
///
/// Its path is always a file's: SQLite's own names for other databases, `:memory:` (kept in
/// memory, gone when the store stops), a `file:` URI (opened by its own rules) or an empty
/// path (a temporary file), are refused with a ``NotesStoreError``. Text is read back by its
/// length, so a note comes back as it was written, whatever characters it holds.
///
/// ```swift
/// let store = SQLiteNotesStore(path: "notes.sqlite")
/// try await store.start()
/// ```
public final class SQLiteNotesStore: NotesStore {
  /// The file's path.
  public let path: String
  /// How long a statement waits for a lock another connection holds on the file.
  public let busyTimeout: Duration
  /// The delete-all confirmation tokens issued for these notes.
  public let deletionTokens = DeletionTokens()
  private let logger: Logger
  private let connection = Mutex<SQLiteConnection?>(nil)

  /// Creates a store on a file, which ``start()`` creates if it does not exist.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - busyTimeout: How long a statement waits for a lock another connection holds.
  ///   - logger: Where the store logs its start and stop, and sqlite-nio what it does.
  public init(
    path: String, busyTimeout: Duration = .seconds(5),
    logger: Logger = Logger(label: "NotesServer.sqlite")
  ) {
    self.path = path
    self.busyTimeout = busyTimeout
    self.logger = logger
  }

  /// Names the store and its file.
  public var description: String { "the SQLite notes store at \(path)" }

  /// Opens the file, creating it and its table if needed.
  ///
  /// - Throws: ``NotesStoreError`` when the file cannot be opened or written.
  public func start() async throws(NotesStoreError) {
    logger.info("starting \(self)")
    if let problem = Self.problem(withPath: path) { throw NotesStoreError(store: self, problem) }
    try createForOwnerOnly()
    let opened: SQLiteConnection
    do {
      opened = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
    } catch {
      throw NotesStoreError(store: self, "cannot open the file: \(Self.reason(error))")
    }
    let milliseconds =
      busyTimeout.components.seconds * 1_000
      + busyTimeout.components.attoseconds / 1_000_000_000_000_000
    do {
      for statement in [
        "PRAGMA busy_timeout = \(milliseconds)", "PRAGMA journal_mode = WAL",
        "PRAGMA synchronous = NORMAL",
        """
        CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, \
        owner TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS notes_by_owner ON notes (owner, id)",
      ] {
        _ = try await opened.query(statement)
      }
    } catch {
      try? await opened.close()
      throw NotesStoreError(store: self, "cannot make its table: \(Self.reason(error))")
    }
    let earlier = connection.withLock { connection in
      defer { connection = opened }
      return connection
    }
    try? await earlier?.close()
    logger.info("started \(self)")
  }

  /// Why SQLite would not take a path as the path of a file, or `nil` if it would.
  ///
  /// - Parameter path: The path the store is given.
  /// - Returns: What is wrong and what to pass instead.
  static func problem(withPath path: String) -> String? {
    if path.isEmpty {
      return "'' is not the path of a file: SQLite would keep the notes in a temporary file,"
        + " deleted when the server stops; name a file, such as notes.sqlite"
    }
    if path == ":memory:" {
      return "':memory:' is not the path of a file: SQLite would keep the notes in memory and"
        + " lose them when the server stops; name a file, such as notes.sqlite (./:memory: for a"
        + " file of that name)"
    }
    if path.hasPrefix("file:") {
      return "'\(path)' is not the path of a file: SQLite would open it as a URI, by its own"
        + " rules (mode=memory keeps nothing); name the file itself (./file:… for a file whose"
        + " name starts so)"
    }
    return nil
  }

  /// Creates the file, empty and for its owner only, unless it exists; SQLite then opens it
  /// as it is, and gives its write-ahead log the file's mode.
  private func createForOwnerOnly() throws(NotesStoreError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      guard code == EEXIST else {
        throw NotesStoreError(
          store: self, "cannot open the file: \(String(cString: strerror(code)))")
      }
      return
    }
    close(descriptor)
  }

  /// Closes the file. Statements sent after it fail with a ``NotesStoreError``.
  public func stop() async {
    logger.info("stopping \(self)")
    let open = connection.withLock { connection in
      defer { connection = nil }
      return connection
    }
    try? await open?.close()
    logger.info("stopped \(self): it is closed")
  }

  /// A user's notes, oldest first; see ``NotesStore/notes(of:)``.
  public func notes(of owner: AuthenticatedUser) async throws(NotesStoreError) -> [Note] {
    try await query(
      "SELECT \(Self.columns) FROM notes WHERE owner = ?1 ORDER BY id",
      [.text(owner.name)]
    ).map(Self.note)
  }

  /// Adds a note in one statement; see ``NotesStore/add(_:owner:)``.
  public func add(
    _ draft: NoteDraft, owner: AuthenticatedUser
  ) async throws(NotesStoreError) -> Note {
    let rows = try await query(
      "INSERT INTO notes (owner, title, text) VALUES (?1, ?2, ?3) RETURNING \(Self.columns)",
      [.text(owner.name), .text(draft.title), .text(draft.text)])
    guard let row = rows.first else {
      throw NotesStoreError(store: self, "the insert returned no note")
    }
    return Self.note(row)
  }

  /// Removes a note in one statement; see ``NotesStore/remove(id:owner:)``.
  public func remove(
    id: Int, owner: AuthenticatedUser
  ) async throws(NotesStoreError) -> Note? {
    try await query(
      "DELETE FROM notes WHERE id = ?1 AND owner = ?2 RETURNING \(Self.columns)",
      [.integer(id), .text(owner.name)]
    ).first.map(Self.note)
  }

  /// Removes a user's notes in one statement; see ``NotesStore/removeAll(of:)``.
  public func removeAll(of owner: AuthenticatedUser) async throws(NotesStoreError) -> Int {
    try await query("DELETE FROM notes WHERE owner = ?1 RETURNING id", [.text(owner.name)]).count
  }

  /// The number of notes; see ``NotesStore/count()``.
  public func count() async throws(NotesStoreError) -> Int {
    try await query("SELECT count(*) AS count FROM notes", []).first?.column("count")?.integer
      ?? 0
  }

  private func query(
    _ sql: String, _ binds: [SQLiteData]
  ) async throws(NotesStoreError) -> [SQLiteRow] {
    guard let connection = connection.withLock({ $0 }) else {
      throw NotesStoreError(store: self, "it is not open: start it first, or it was stopped")
    }
    do {
      return try await connection.query(sql, binds)
    } catch {
      throw NotesStoreError(store: self, Self.reason(error))
    }
  }

  /// A note's columns, its text read as bytes: sqlite-nio reads a text column up to its first
  /// NUL, as a C string, and a blob by its length.
  private static let columns =
    "id, CAST(owner AS BLOB) AS owner, CAST(title AS BLOB) AS title, CAST(text AS BLOB) AS text"

  private static func note(_ row: SQLiteRow) -> Note {
    func text(_ column: String) -> String {
      guard case .blob(let bytes) = row.column(column) else { return "" }
      return String(buffer: bytes)
    }
    return Note(
      id: row.column("id")?.integer ?? 0, title: text("title"), text: text("text"),
      owner: text("owner"))
  }

  private static func reason(_ error: any Error) -> String {
    guard let error = error as? SQLiteError else { return "\(error)" }
    return error.message
  }
}
