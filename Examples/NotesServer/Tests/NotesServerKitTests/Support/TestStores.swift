import Logging
import NotesServerKit
import Testing

#if PostgreSQL
  import PostgresNIO
#endif

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The stores every test runs against: SQLite always, PostgreSQL in a build with the PostgreSQL
/// trait when `NOTES_TEST_POSTGRES_URL` names a server (`test-both-stores.sh` builds so, starts
/// one and sets it, as `.ci/run` does).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgresql

  /// The server the PostgreSQL half runs against, if any.
  static let postgresURL = ProcessInfo.processInfo.environment["NOTES_TEST_POSTGRES_URL"]

  /// The kinds of store this build has.
  #if PostgreSQL
    static let built: [StoreKind] = [.sqlite, .postgresql]
  #else
    static let built: [StoreKind] = [.sqlite]
  #endif

  /// The kinds this run tests.
  static let all: [StoreKind] = postgresURL == nil ? [.sqlite] : built

  var testDescription: String { rawValue }

  /// What a PostgreSQL test meets in a build without the trait.
  static let notBuilt = NotBuilt()

  /// A store this build does not have.
  struct NotBuilt: Error, CustomStringConvertible {
    var description: String {
      "this build has no PostgreSQL store: build the tests with --traits PostgreSQL"
    }
  }
}

/// A fresh store of a kind, started, and how to remove it.
struct TestStore: Sendable {
  /// The store, started.
  let store: any NotesStore
  /// Where it is: an SQLite file's path, or a PostgreSQL schema.
  let location: String
  /// Makes another store on the same data, not started: what a restarted server opens.
  let reopen: @Sendable () throws -> any NotesStore
  /// Stops the store and deletes its data.
  let remove: @Sendable () async -> Void

  /// Where the stores log their start and stop, which every test makes: nowhere.
  static let quiet = Logger(label: "NotesServerTests.stores") { _ in SwiftLogNoOpLogHandler() }

  /// Makes a fresh store of a kind: an SQLite file in a folder of its own, or a PostgreSQL
  /// schema of its own, so that tests running in parallel never share notes or ids.
  static func make(_ kind: StoreKind, start: Bool = true) async throws -> TestStore {
    let quiet = Self.quiet
    let name =
      "notes_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let made: TestStore
    switch kind {
    case .sqlite:
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let path = folder + "/notes.sqlite"
      made = TestStore(
        store: SQLiteNotesStore(path: path, busyTimeout: .milliseconds(500), logger: quiet),
        location: path,
        reopen: { SQLiteNotesStore(path: path, busyTimeout: .milliseconds(500), logger: quiet) },
        remove: { try? FileManager.default.removeItem(atPath: folder) })
    case .postgresql:
      #if PostgreSQL
        let url = try #require(StoreKind.postgresURL, "set NOTES_TEST_POSTGRES_URL")
        let configuration = try PostgresNotesStore.configuration(url: url)
        try await PostgresAdmin.run(url: url, "CREATE SCHEMA \(name)")
        let open: @Sendable () -> any NotesStore = {
          var configuration = configuration
          configuration.options.additionalStartupParameters = [("search_path", name)]
          configuration.options.maximumConnections = 8
          return PostgresNotesStore(
            configuration: configuration, startTimeout: .seconds(20), logger: quiet)
        }
        made = TestStore(
          store: open(), location: name, reopen: open,
          remove: { try? await PostgresAdmin.run(url: url, "DROP SCHEMA \(name) CASCADE") })
      #else
        throw StoreKind.notBuilt
      #endif
    }
    if start {
      do {
        try await made.store.start()
      } catch {
        await made.remove()
        throw error
      }
    }
    return made
  }
}

/// Runs a test with a fresh store of a kind, started unless `start` is false, and stops and
/// removes it after, however the test ends.
func withStore<Result: Sendable>(
  _ kind: StoreKind, start: Bool = true, _ body: (TestStore) async throws -> Result
) async throws -> Result {
  try await withStores(kind, count: 1, start: start) { try await body($0[0]) }
}

/// Runs a test with `count` fresh stores of a kind, started unless `start` is false, and stops
/// and removes every one it made after, however the test ends: a body that throws, a store
/// that fails to start halfway through, or a test that is cancelled.
func withStores<Result: Sendable>(
  _ kind: StoreKind, count: Int, start: Bool = true,
  _ body: ([TestStore]) async throws -> Result
) async throws -> Result {
  var made: [TestStore] = []
  do {
    for _ in 0..<count { made.append(try await TestStore.make(kind, start: start)) }
    let result = try await body(made)
    await removeEvenIfCancelled(made)
    return result
  } catch {
    await removeEvenIfCancelled(made)
    throw error
  }
}

/// Stops and removes stores in a task of its own, which a cancellation of the test does not
/// reach: a cancelled test's PostgreSQL schemas are dropped all the same.
private func removeEvenIfCancelled(_ stores: [TestStore]) async {
  await Task {
    for store in stores {
      try? await store.store.stop()
      await store.remove()
    }
  }.value
}

#if PostgreSQL
  /// Statements the tests send to the PostgreSQL server itself, over a connection of their own.
  enum PostgresAdmin {
    /// Runs statements, one after the other, on a new connection.
    static func run(url: String, _ statements: String...) async throws {
      try await withConnection(url: url) { connection in
        for statement in statements {
          try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
      }
    }

    /// Runs a body with a connection of its own, closed after.
    static func withConnection<Result>(
      url: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
      let client = try PostgresNotesStore.configuration(url: url)
      let configuration = PostgresConnection.Configuration(
        host: client.host ?? "127.0.0.1", port: client.port ?? 5432, username: client.username,
        password: client.password, database: client.database, tls: .disable)
      let connection = try await PostgresConnection.connect(
        configuration: configuration, id: 1, logger: logger)
      do {
        let result = try await body(connection)
        try await connection.close()
        return result
      } catch {
        try? await connection.close()
        throw error
      }
    }

    static let logger = TestStore.quiet
  }
#endif

/// A fresh, empty database for a server process of a test's own: an SQLite file in a folder of
/// its own, or a PostgreSQL database of its own (a process cannot be told a schema).
struct TestDatabase: Sendable {
  /// What `--store` is given: the file's path, or the database's URL.
  let location: String
  /// Deletes the database.
  let remove: @Sendable () async -> Void

  /// Makes a fresh database of a kind.
  static func make(_ kind: StoreKind) async throws -> TestDatabase {
    let name =
      "notes_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    switch kind {
    case .sqlite:
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      return TestDatabase(
        location: folder + "/notes.sqlite",
        remove: { try? FileManager.default.removeItem(atPath: folder) })
    case .postgresql:
      #if PostgreSQL
        let url = try #require(StoreKind.postgresURL, "set NOTES_TEST_POSTGRES_URL")
        try await PostgresAdmin.run(url: url, "CREATE DATABASE \(name)")
        let base = url[..<(url.lastIndex(of: "/") ?? url.endIndex)]
        return TestDatabase(
          location: "\(base)/\(name)",
          remove: { try? await PostgresAdmin.run(url: url, "DROP DATABASE \(name) WITH (FORCE)") })
      #else
        throw StoreKind.notBuilt
      #endif
    }
  }
}

/// Runs a test with a fresh database of a kind, and deletes it after, however the test ends.
func withTestDatabase<Result: Sendable>(
  _ kind: StoreKind, _ body: (TestDatabase) async throws -> Result
) async throws -> Result {
  let database = try await TestDatabase.make(kind)
  do {
    let result = try await body(database)
    await Task { await database.remove() }.value
    return result
  } catch {
    await Task { await database.remove() }.value
    throw error
  }
}
