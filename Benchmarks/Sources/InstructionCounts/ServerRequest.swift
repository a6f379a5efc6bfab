import Milieu

// A request as `Examples/NotesServer` handles one, without the HTTP server: a middleware makes
// the request's logger and a child of the app node holding the request's id, user and logger;
// the handler reads them, the configuration and the derived service, and the service logs with
// the current node's logger. The by-hand case does the same work with the values passed in.

/// Stands in for swift-log's `Logger`: a label and metadata the middleware adds to.
struct RequestLogger: Sendable {
  var label = "notes"
  var metadata: [String: String] = [:]
}

struct ServerConfiguration: Sendable {
  var maximumBodySize = 16_384
  var tokenLifetime = Duration.seconds(60)
}

final class NotesStore: Sendable {}

/// The service every request shares: derived from the app's values in Milieu's case.
final class NotesService: Sendable {
  let store: NotesStore
  let tokenLifetime: Duration

  init(store: NotesStore, tokenLifetime: Duration) {
    self.store = store
    self.tokenLifetime = tokenLifetime
  }

  @inline(never)
  func create(title: String, for user: String, logger: RequestLogger, maximumBodySize: Int) -> Int {
    title.utf8.count + user.utf8.count + logger.metadata.count + maximumBodySize
  }
}

extension EnvironmentValues {
  static let requestLogger = Entry(RequestLogger())
  var requestLogger: RequestLogger {
    get { self[Self.requestLogger] }
    set { self[Self.requestLogger] = newValue }
  }
  static let serverConfiguration = Entry(ServerConfiguration())
  var serverConfiguration: ServerConfiguration {
    get { self[Self.serverConfiguration] }
    set { self[Self.serverConfiguration] = newValue }
  }
  static let notesStore = Entry(NotesStore())
  var notesStore: NotesStore {
    get { self[Self.notesStore] }
    set { self[Self.notesStore] = newValue }
  }
  static let requestID = Entry(String?.none)
  var requestID: String? {
    get { self[Self.requestID] }
    set { self[Self.requestID] = newValue }
  }
  static let user = Entry(String?.none)
  var user: String? {
    get { self[Self.user] }
    set { self[Self.user] = newValue }
  }
  static let notesService = Derived { values in
    NotesService(
      store: values.notesStore, tokenLifetime: values.serverConfiguration.tokenLifetime)
  }
  var notesService: NotesService { self[Self.notesService] }
}

struct RequestMiddleware {
  @Environment(\.requestLogger) var logger
}

/// The two cases, each with its fixtures made before its loop.
enum ServerRequest {
  static let all: [CountedCase] = [
    CountedCase("NotesServer request, by hand") { byHand(iterations: $0) },
    CountedCase("NotesServer request, node per request") { nodePerRequest(iterations: $0) },
  ]

  static let requestIDs = (0..<100).map { "request-\($0)" }

  static func byHand(iterations: Int) {
    let service = NotesService(store: NotesStore(), tokenLifetime: .seconds(60))
    let appLogger = RequestLogger()
    for iteration in 0..<iterations {
      var logger = appLogger
      logger.metadata["request.id"] = requestIDs[iteration % 100]
      logger.metadata["user"] = "writer"
      blackHole(
        service.create(title: "Load", for: "writer", logger: logger, maximumBodySize: 16_384))
      blackHole(logger.metadata.count)
    }
  }

  static func nodePerRequest(iterations: Int) {
    let app = EnvironmentNode("app")
    app.update {
      $0.serverConfiguration = ServerConfiguration()
      $0.requestLogger = RequestLogger()
      $0.notesStore = NotesStore()
    }
    let middleware = app.withCurrent { RequestMiddleware() }
    for iteration in 0..<iterations {
      var logger = middleware.logger
      logger.metadata["request.id"] = requestIDs[iteration % 100]
      logger.metadata["user"] = "writer"
      let node = app.child("request") { values in
        values.requestID = requestIDs[iteration % 100]
        values.user = "writer"
        values.requestLogger = logger
      }
      node.withCurrent {
        let values = EnvironmentNode.current.values
        let maximumBodySize = values.serverConfiguration.maximumBodySize
        blackHole(
          values.notesService.create(
            title: "Load", for: values.user ?? "", logger: values.requestLogger,
            maximumBodySize: maximumBodySize))
        blackHole(EnvironmentNode.current[\.requestLogger].metadata.count)
      }
    }
  }
}
