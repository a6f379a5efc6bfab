// The PostgreSQL store is compiled with the PostgreSQL trait only: `swift build --traits
// PostgreSQL`. See Package.swift.
#if PostgreSQL
  import Logging
  import PostgresNIO
  import Synchronization

  /// The notes in a PostgreSQL database, through postgres-nio's `PostgresClient`.
  ///
  /// The client is a pool of connections that serves only while its `run()` runs: ``start()``
  /// runs it in a task the store owns, then makes the table, waiting at most ``startTimeout`` for
  /// the database; ``stop()`` ends it, closing every connection once the statements in flight
  /// have finished. A statement whose connection is lost fails with a ``NotesStoreError``; the
  /// pool connects again for the next one.
  ///
  /// ```swift
  /// let store = try PostgresNotesStore(url: "postgres://notes@127.0.0.1:5432/notes")
  /// try await store.start()
  /// ```
  public final class PostgresNotesStore: NotesStore {
    /// The client the store sends its statements through.
    public let client: PostgresClient
    /// How long ``start()`` waits for the database to answer.
    public let startTimeout: Duration
    /// The delete-all confirmation tokens issued for these notes.
    public let deletionTokens = DeletionTokens()
    private let address: String
    private let logger: Logger
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// Creates a store on a database; nothing connects before ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: Where the database is and how to log in.
    ///   - startTimeout: How long ``start()`` waits for the database to answer.
    ///   - logger: Where the store logs its start and stop, and the client its connections.
    public init(
      configuration: PostgresClient.Configuration, startTimeout: Duration = .seconds(10),
      logger: Logger = Logger(label: "NotesServer.postgres")
    ) {
      var configuration = configuration
      configuration.options.connectTimeout = min(configuration.options.connectTimeout, startTimeout)
      // The pool logs each failed connection attempt at info; the store logs what they mean.
      var clientLogger = logger
      clientLogger.logLevel = max(logger.logLevel, .notice)
      client = PostgresClient(configuration: configuration, backgroundLogger: clientLogger)
      let host = configuration.host ?? configuration.unixSocketPath ?? "?"
      address = "\(host):\(configuration.port ?? 5432)/\(configuration.database ?? "")"
      self.startTimeout = startTimeout
      self.logger = logger
    }

    /// Creates a store on the database a URL names: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - startTimeout: How long ``start()`` waits for the database to answer.
    ///   - logger: Where the store logs its start and stop, and the client its connections.
    /// - Throws: ``StoreLocationError`` naming what is wrong with the URL.
    public convenience init(
      url: String, startTimeout: Duration = .seconds(10),
      logger: Logger = Logger(label: "NotesServer.postgres")
    ) throws(StoreLocationError) {
      self.init(
        configuration: try Self.configuration(url: url), startTimeout: startTimeout, logger: logger)
    }

    /// The client configuration a URL names: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`, with
    /// TLS off, as on loopback.
    ///
    /// ```swift
    /// var configuration = try PostgresNotesStore.configuration(url: url)
    /// configuration.options.additionalStartupParameters = [("search_path", "tenant_7")]
    /// ```
    ///
    /// - Parameter url: The URL.
    /// - Returns: The configuration.
    /// - Throws: ``StoreLocationError`` naming the part that is wrong.
    public static func configuration(
      url: String
    ) throws(StoreLocationError) -> PostgresClient.Configuration {
      let url = try PostgresURL(parsing: url)
      return PostgresClient.Configuration(
        host: url.host, port: url.port, username: url.user, password: url.password,
        database: url.database, tls: .disable)
    }

    /// Names the store and its database.
    public var description: String { "the PostgreSQL notes store at \(address)" }

    /// Runs the client and makes the table, waiting at most ``startTimeout``.
    ///
    /// - Throws: ``NotesStoreError`` when the database does not answer in time, or refuses.
    public func start() async throws(NotesStoreError) {
      logger.info("starting \(self)")
      let client = client
      let task = Task { await client.run() }
      running.withLock { $0 = task }
      let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS notes (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
        owner TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS notes_by_owner ON notes (owner, id)",
      ]
      let outcome = await withDeadline(startTimeout) {
        for statement in statements {
          try await client.query(statement, logger: self.logger)
        }
      }
      switch outcome {
      case .finished(.success):
        logger.info("started \(self)")
        return
      case .finished(.failure(let error)):
        await stopClient()
        throw NotesStoreError(store: self, "cannot make its table: \(Self.reason(error))")
      case .timedOut:
        await stopClient()
        throw NotesStoreError(
          store: self, "the database did not answer within \(startTimeout): is it running?")
      }
    }

    /// Ends the client's run after a failed start, without logging a stop.
    private func stopClient() async {
      let task = running.withLock { running in
        defer { running = nil }
        return running
      }
      task?.cancel()
      await task?.value
    }

    /// Ends the client's run: statements in flight finish, then every connection closes.
    public func stop() async {
      let task = running.withLock { running in
        defer { running = nil }
        return running
      }
      guard let task else { return }
      logger.info("stopping \(self)")
      task.cancel()
      await task.value
      logger.info("stopped \(self): every connection is closed")
    }

    /// A user's notes, oldest first; see ``NotesStore/notes(of:)``.
    public func notes(of owner: AuthenticatedUser) async throws(NotesStoreError) -> [Note] {
      try await rows(
        "SELECT id, owner, title, text FROM notes WHERE owner = \(owner.name) ORDER BY id",
        isRead: true)
    }

    /// Adds a note in one statement; see ``NotesStore/add(_:owner:)``.
    public func add(
      _ draft: NoteDraft, owner: AuthenticatedUser
    ) async throws(NotesStoreError) -> Note {
      let notes = try await rows(
        """
        INSERT INTO notes (owner, title, text) VALUES (\(owner.name), \(draft.title), \
        \(draft.text)) RETURNING id, owner, title, text
        """)
      guard let note = notes.first else {
        throw NotesStoreError(store: self, "the insert returned no note")
      }
      return note
    }

    /// Removes a note in one statement; see ``NotesStore/remove(id:owner:)``.
    public func remove(
      id: Int, owner: AuthenticatedUser
    ) async throws(NotesStoreError) -> Note? {
      try await rows(
        """
        DELETE FROM notes WHERE id = \(id) AND owner = \(owner.name) \
        RETURNING id, owner, title, text
        """
      ).first
    }

    /// Removes a user's notes in one statement; see ``NotesStore/removeAll(of:)``.
    public func removeAll(of owner: AuthenticatedUser) async throws(NotesStoreError) -> Int {
      try await run {
        try await self.client.query(
          "DELETE FROM notes WHERE owner = \(owner.name) RETURNING id", logger: self.logger
        ).collect().count
      }
    }

    /// The number of notes; see ``NotesStore/count()``.
    public func count() async throws(NotesStoreError) -> Int {
      try await run(isRead: true) {
        var count = 0
        for try await (value) in try await self.client.query(
          "SELECT count(*) FROM notes", logger: self.logger
        ).decode(Int.self) {
          count = value
        }
        return count
      }
    }

    private func rows(
      _ query: PostgresQuery, isRead: Bool = false
    ) async throws(NotesStoreError) -> [Note] {
      try await run(isRead: isRead) {
        var notes: [Note] = []
        for try await (id, owner, title, text) in try await self.client.query(
          query, logger: self.logger
        ).decode((Int, String, String, String).self) {
          notes.append(Note(id: id, title: title, text: text, owner: owner))
        }
        return notes
      }
    }

    /// Runs a statement, turning its failure into a ``NotesStoreError``.
    ///
    /// A read whose connection turns out to be closed is sent once more, on another: the pool
    /// may lease a connection the server has just ended before it sees it close. A write is
    /// never sent twice, since the first may have been carried out.
    private func run<Result>(
      isRead: Bool = false, _ body: () async throws -> Result
    ) async throws(NotesStoreError) -> Result {
      guard running.withLock({ $0 != nil }) else {
        throw NotesStoreError(store: self, "it is not running: start it first, or it was stopped")
      }
      do {
        return try await body()
      } catch let error as PSQLError where isRead && error.code == .serverClosedConnection {
        do {
          return try await body()
        } catch {
          throw NotesStoreError(store: self, Self.reason(error))
        }
      } catch {
        throw NotesStoreError(store: self, Self.reason(error))
      }
    }

    /// What went wrong, without the query's values: the error's code, the server's message and
    /// the cause below it.
    private static func reason(_ error: any Error) -> String {
      guard let error = error as? PSQLError else { return "\(error)" }
      var parts = ["\(error.code)"]
      if let message = error.serverInfo?[.message] { parts.append(message) }
      if let underlying = error.underlying { parts.append("\(underlying)") }
      return parts.joined(separator: ": ")
    }
  }
#endif
