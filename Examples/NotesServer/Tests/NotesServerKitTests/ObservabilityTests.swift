import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import Logging
import Milieu
import NotesServerKit
import Testing
import Tracing

/// What a request's work saw of its trace: the request's id, and the trace id of the
/// `ServiceContext` its node holds.
struct TraceProbe: ResponseEncodable, Decodable, Equatable {
  let requestID: String
  let traceID: String?
}

/// A service a handler calls, which logs and starts a span with nothing passed to it: the
/// logger and the span read the request from the current node.
struct Auditor {
  @Milieu.Environment(\.logger) var logger

  func audit(_ what: String) {
    let span = EnvironmentNode.current.values.startSpan("audit.\(what)")
    defer { span.end() }
    logger.info("audited \(what)")
  }
}

/// Library code that knows nothing of Milieu or of the server: it logs through swift-log's
/// task-local `Logger.current`, as SLG-0006 has libraries do.
enum Library {
  static func work(_ what: String) {
    Logger.current.info("library: \(what)")
  }

  /// The label of the logger it would log with, here.
  static var currentLabel: String { Logger.current.label }
}

/// Every log line and every span of a request carries that request's id and user, and no
/// other's, and the trace a request arrived with reaches its services through its node.
@Suite("Logs and traces carry the request")
struct ObservabilityTests {
  static let requestCount = 200

  /// Adds `POST /traced`: it logs, calls a service that logs and starts a span, hands work to
  /// a `Task.detached` that re-enters the request's node (the documented way) and to one that
  /// does not, and creates a note through the notes service, whose store call is a span.
  static func addTracedRoute(to router: Router<NotesRequestContext>) {
    router.post("traced") { _, _ -> TraceProbe in
      let values = EnvironmentNode.current.values
      values.logger.info("handled")
      Auditor().audit("inline")
      let node = EnvironmentNode.current
      await Task.detached {
        node.withCurrent { Auditor().audit("detached") }
      }.value
      let logger = values.logger
      await Task.detached { logger.info("outside any request") }.value
      _ = try await values.notesService.create(
        NoteDraft(title: "traced"), for: try values.notesCaller())
      return TraceProbe(
        requestID: try #require(values.requestID),
        traceID: values.serviceContext.inMemorySpanContext?.traceID)
    }
  }

  /// Adds `GET /library`: it calls library code that logs through `Logger.current` from the
  /// handler, from a `Task` the handler starts, from a `Task.detached` that re-enters the
  /// request's node and logger, and from one that does not, and answers with the label of the
  /// logger the last one saw.
  static func addLibraryRoute(to router: Router<NotesRequestContext>) {
    router.get("library") { _, _ -> String in
      Library.work("in the handler")
      await Task { Library.work("in a task") }.value
      let node = EnvironmentNode.current
      await Task.detached {
        node.withCurrent { withLogger(node[\.logger]) { _ in Library.work("re-entered") } }
      }.value
      return await Task.detached {
        Library.work("detached")
        return Library.currentLabel
      }.value
    }
  }

  /// The logger the request's node reads is `Logger.current` in the request: what library code
  /// logs through it, in the handler or in a `Task` it starts, carries the request's id and
  /// user; a `Task.detached` logs through the process's default logger instead, until it
  /// re-enters the request.
  @Test func libraryCodeLogsThroughTheRequestsLogger() async throws {
    try await withNotesApp(.sqlite, addRoutes: Self.addLibraryRoute) { client, app in
      var seen: [String: String] = [:]
      for user in ["ada", "grace"] {
        let response = try await client.send(.get, "/library", as: user)
        #expect(response.status == .ok)
        seen[user] = String(buffer: response.body)
      }
      let lines = app.logs.entries.filter { $0.message.description.hasPrefix("library: ") }
      let perRequest = ["in the handler", "in a task", "re-entered"].map { "library: \($0)" }
      #expect(lines.map(\.message.description) == perRequest + perRequest)
      let users = lines.map { $0.metadata["user"]?.description }
      #expect(users == ["ada", "ada", "ada", "grace", "grace", "grace"])
      let requestIDs = lines.map { $0.metadata["request.id"]?.description }
      #expect(requestIDs.allSatisfy { $0 != nil })
      #expect(Set(requestIDs).count == 2)
      #expect(requestIDs[0] == requestIDs[2] && requestIDs[3] == requestIDs[5])
      // The detached task that did not re-enter logged through another logger than the app's.
      #expect(seen == ["ada": "", "grace": ""])
    }
  }

  @Test(arguments: StoreKind.all)
  func everyLineAndSpanOf200ConcurrentRequestsCarriesItsOwnRequest(
    store: StoreKind
  ) async throws {
    let tracer = InMemoryTracer()
    try await withNotesApp(store, tracer: tracer, addRoutes: Self.addTracedRoute) { client, app in
      let traceIDName = try #require(HTTPField.Name(InMemoryTracer.traceIDKey))
      let spanIDName = try #require(HTTPField.Name(InMemoryTracer.spanIDKey))
      let userName = try #require(HTTPField.Name("X-User"))
      let probes = try await withThrowingTaskGroup(of: (String, TraceProbe).self) { group in
        for index in 0..<Self.requestCount {
          group.addTask {
            var headers = HTTPFields()
            headers[userName] = "user-\(index)"
            headers[traceIDName] = "trace-\(index)"
            headers[spanIDName] = "parent-\(index)"
            let response = try await client.execute(
              uri: "/traced", method: .post, headers: headers)
            #expect(response.status == .ok)
            return ("user-\(index)", try response.json(TraceProbe.self))
          }
        }
        return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
      }
      #expect(probes.count == Self.requestCount)
      // A duplicate id fails the count below rather than trapping here.
      let userOfRequest = Dictionary(
        probes.map { ($1.requestID, $0) }, uniquingKeysWith: { first, _ in first })
      #expect(userOfRequest.count == Self.requestCount)
      for (user, probe) in probes {
        #expect(probe.traceID == "trace-\(user.dropFirst("user-".count))")
      }

      // Logs: every line of a request names it and its user; the line of the detached task
      // that did not re-enter the node names no request.
      let entries = app.logs.entries
      let requestLines = entries.filter { $0.message.description != "outside any request" }
      #expect(requestLines.count == Self.requestCount * 4)
      for entry in requestLines {
        let requestID = try #require(
          entry.metadata["request.id"]?.description, "no request id on '\(entry.message)'")
        #expect(entry.metadata["user"]?.description == userOfRequest[requestID])
      }
      let perRequest = Dictionary(grouping: requestLines) {
        $0.metadata["request.id"]?.description ?? ""
      }
      #expect(perRequest.count == Self.requestCount)
      #expect(
        perRequest.values.allSatisfy {
          Set($0.map { String($0.message.description.prefix(12)) })
            == ["handled", "audited inli", "audited deta", "created note"]
        })
      let outside = entries.filter { $0.message.description == "outside any request" }
      #expect(outside.count == Self.requestCount)
      #expect(outside.allSatisfy { $0.metadata["request.id"] == nil })

      // Spans: three a request (the inline audit, the detached one and the store's insert),
      // each a child of the trace the request arrived with, carrying its id and user.
      let spans = tracer.finishedSpans
      #expect(spans.count == Self.requestCount * 3)
      for span in spans {
        let requestID = try #require(
          Self.text(span.attributes["request.id"]),
          "no request id on span \(span.operationName)")
        let user = try #require(userOfRequest[requestID], "span of an unknown request")
        #expect(Self.text(span.attributes["user"]) == user)
        #expect(span.traceID == "trace-\(user.dropFirst("user-".count))")
      }
      #expect(
        Set(spans.map(\.operationName)) == ["audit.inline", "audit.detached", "notes.add"])
    }
  }

  /// The text of a string attribute.
  static func text(_ attribute: (any SpanAttributeConvertible)?) -> String? {
    guard case .string(let text) = attribute?.toSpanAttribute() else { return nil }
    return text
  }
}
