import HummingbirdTesting
import Logging
import NotesServerKit
import SQLiteNIO
import Testing

#if PostgreSQL
  import PostgresNIO
#endif

/// A database that goes away while a request is using it: the request is answered 503 with a
/// message that names the store, the server logs it, nothing of the request is kept, and the
/// next request is served once the database is back.
@Suite("A database lost in the middle of a request")
struct StoreFailureTests {
  @Test(arguments: StoreKind.all)
  func theRequestIsAnswered503NamingTheStoreAndNothingIsKept(store: StoreKind) async throws {
    try await withNotesApp(store) { client, app in
      let answer: TestResponse
      switch store {
      case .sqlite: answer = try await Self.createWhileLocked(app, client)
      case .postgresql:
        #if PostgreSQL
          answer = try await Self.createWhileConnectionIsKilled(app, client)
        #else
          throw StoreKind.notBuilt
        #endif
      }
      #expect(answer.status == .serviceUnavailable)
      let message = try answer.apiError().message
      #expect(message.hasPrefix(app.store.description + ": "), "\(message)")
      #expect(message.hasSuffix("; nothing was changed, try again later"), "\(message)")
      #expect(try await app.store.count() == 0, "the lost request's note was kept")
      #expect(app.notifications.notifications == [])
      let logged = app.logs.entries.filter { $0.level == .error }
      #expect(logged.map(\.message.description) == [String(message.dropLast(38))])
      #expect(logged.first?.metadata["user"] == "alice")

      let next = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Next"}"#)
      #expect(next.status == .created)
      #expect(try await app.store.notes(of: AuthenticatedUser(headerValue: "alice")).count == 1)
    }
  }

  /// Another process holds the SQLite file's write lock for longer than the store waits.
  static func createWhileLocked(
    _ app: NotesTestApp, _ client: any TestClientProtocol
  ) async throws -> TestResponse {
    let other = try await SQLiteConnection.open(storage: .file(path: app.database))
    _ = try await other.query("BEGIN EXCLUSIVE")
    let answer = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Lost"}"#)
    _ = try await other.query("ROLLBACK")
    try await other.close()
    return answer
  }

  #if PostgreSQL
    /// The request's INSERT waits on a table lock; its connection is then ended by the server,
    /// as when PostgreSQL restarts or a network drops, while the request waits.
    static func createWhileConnectionIsKilled(
      _ app: NotesTestApp, _ client: any TestClientProtocol
    ) async throws -> TestResponse {
      let url = try #require(StoreKind.postgresURL)
      return try await PostgresAdmin.withConnection(url: url) { admin in
        let logger = PostgresAdmin.logger
        try await admin.query("BEGIN", logger: logger)
        try await admin.query(
          PostgresQuery(unsafeSQL: "LOCK TABLE \(app.database).notes IN ACCESS EXCLUSIVE MODE"),
          logger: logger)
        let request = Task {
          try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Lost"}"#)
        }
        // Another connection watches: a transaction sees pg_stat_activity as it was when it began.
        try await PostgresAdmin.withConnection(url: url) { watcher in
          var waiting: Int?
          let deadline = ContinuousClock.now.advanced(by: .seconds(10))
          while waiting == nil, ContinuousClock.now < deadline {
            let rows = try await watcher.query(
              """
              SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' \
              AND query LIKE 'INSERT INTO notes%'
              """, logger: logger)
            for try await pid in rows.decode(Int.self) { waiting = pid }
          }
          let pid = try #require(waiting, "the request's INSERT never waited on the lock")
          try await watcher.query(
            PostgresQuery(unsafeSQL: "SELECT pg_terminate_backend(\(pid))"), logger: logger)
        }
        let answer = try await request.value
        try await admin.query("ROLLBACK", logger: logger)
        return answer
      }
    }
  #endif
}
