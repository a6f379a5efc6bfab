import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import Milieu
import MilieuTesting
import NotesServerKit
import Tracing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A notes app of one test's own, and what the test can check of it.
///
/// ``withNotesApp(configuration:notify:addRoutes:_:)`` makes its app node with MilieuTesting's
/// `withTestEnvironment`, so tests that run in parallel never share a store, a log or a clock.
struct NotesTestApp: Sendable {
  /// The app node: every request's node is a child of it.
  let node: EnvironmentNode
  /// The app's store, started: an SQLite file or a PostgreSQL schema of the test's own.
  let store: any NotesStore
  /// Where the store keeps its notes: the SQLite file's path, or the PostgreSQL schema.
  let database: String
  /// What the app's `notify` sent.
  let notifications: NotificationRecorder
  /// Everything the app logged, at every level.
  let logs: InMemoryLogHandler
  /// The app's clock, which moves only when the test advances it.
  let clock: TestClock
}

/// Runs a test against a fresh notes app, through HummingbirdTesting's router client.
///
/// - Parameters:
///   - kind: The kind of store the app keeps its notes in; a fresh one.
///   - configuration: The app's configuration.
///   - notify: The app's `notify` action; by default one that records into the app's
///     ``NotesTestApp/notifications``.
///   - logger: The app's logger; by default one that logs everything into the app's
///     ``NotesTestApp/logs``.
///   - tracer: The app's tracer; by default one that records nothing.
///   - addRoutes: Adds routes of the test's own to the router, after the notes routes.
///   - body: The test.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or what starting the app throws.
func withNotesApp<Result: Sendable>(
  _ kind: StoreKind,
  configuration: NotesConfiguration = NotesConfiguration(),
  notify: NotifyAction? = nil,
  logger: Logger? = nil,
  tracer: (any Tracer)? = nil,
  addRoutes: (Router<NotesRequestContext>) -> Void = { _ in },
  _ body: @Sendable (any TestClientProtocol, NotesTestApp) async throws -> Result
) async throws -> Result {
  var logs = InMemoryLogHandler()
  logs.metadataProvider = .notesRequest
  var inMemoryLogger = Logger(label: "NotesServerTests") { [logs] _ in logs }
  inMemoryLogger.logLevel = .trace
  let notifications = NotificationRecorder()
  let clock = TestClock()
  return try await withStore(kind) { made in
    let store = made.store
    return try await withTestEnvironment(
      .set(\.configuration, configuration), .set(\.logger, logger ?? inMemoryLogger),
      .set(\.notesStore, store),
      .set(\.notify, notify ?? notifications.action), .set(\.clock, clock),
      .set(\.tracer, tracer ?? NoOpTracer())
    ) {
      let app = NotesTestApp(
        node: .current, store: store, database: made.location, notifications: notifications,
        logs: logs, clock: clock)
      let router = NotesApplication.makeRouter()
      addRoutes(router)
      return try await NotesApplication.make(router: router).test(.router) { client in
        try await body(client, app)
      }
    }
  }
}

extension TestClientProtocol {
  /// Sends a request as a user.
  ///
  /// - Parameters:
  ///   - method: The method.
  ///   - uri: The path and query.
  ///   - user: The `X-User` header's value; `nil` sends none.
  ///   - body: The body, as text.
  /// - Returns: The response.
  /// - Throws: What the client throws when the request cannot be sent.
  func send(
    _ method: HTTPRequest.Method, _ uri: String, as user: String?, body: String? = nil
  ) async throws -> TestResponse {
    var headers = HTTPFields()
    if let user, let name = HTTPField.Name("X-User") {
      headers[name] = user
    }
    return try await execute(
      uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
  }

  /// Sends `POST /notes` with a draft, encoded as JSON whatever its title holds.
  ///
  /// - Parameters:
  ///   - draft: The note's title and text.
  ///   - user: The `X-User` header's value.
  /// - Returns: The response.
  /// - Throws: What the client throws when the request cannot be sent.
  func create(_ draft: NoteDraft, as user: String) async throws -> TestResponse {
    let body = String(decoding: try JSONEncoder().encode(draft), as: UTF8.self)
    return try await send(.post, "/notes", as: user, body: body)
  }
}

extension TestResponse {
  /// The body, decoded from JSON.
  func json<Value: Decodable>(_ type: Value.Type) throws -> Value {
    try JSONDecoder().decode(Value.self, from: Data(body.readableBytesView))
  }

  /// The JSON error the body carries.
  func apiError() throws -> APIError.Body.Details {
    try json(APIError.Body.self).error
  }
}

/// Runs a test against a fresh notes app listening on a port of 127.0.0.1, through the raw
/// connections the test makes.
///
/// - Parameters:
///   - kind: The kind of store the app keeps its notes in; a fresh one.
///   - configuration: The app's configuration; its port is replaced by a free one.
///   - body: The test, given the port.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or what starting the app throws.
func withLiveNotesApp<Result: Sendable>(
  _ kind: StoreKind,
  configuration: NotesConfiguration = NotesConfiguration(),
  _ body: @Sendable (Int) async throws -> Result
) async throws -> Result {
  var configuration = configuration
  configuration.port = 0
  var logger = Logger(label: "NotesServerTests.live")
  logger.logLevel = .error
  return try await withStore(kind) { made in
    try await withTestEnvironment(
      .set(\.configuration, configuration), .set(\.logger, logger), .set(\.notesStore, made.store)
    ) {
      try await NotesApplication.make().test(.live) { client in
        guard let port = client.port else { throw RawConnection.Failure(description: "no port") }
        return try await body(port)
      }
    }
  }
}
