import Hummingbird
import HummingbirdTesting
import Logging
import Milieu
import NotesServerKit
import Testing

/// What a request's handler sees of its environment, read twice with a suspension between.
struct EnvironmentProbe: ResponseEncodable, Decodable, Equatable {
  let user: String?
  let requestID: String?
  let loggerUser: String?
  let loggerRequestID: String?
  let nodeIsChildOfApp: Bool
}

@Suite("Concurrent requests")
struct ConcurrencyTests {
  static let requestCount = 200

  /// Adds `GET /probe`, whose handler reads the request's environment before and after it
  /// suspends, and remembers the request's node without keeping it.
  static func addProbe(
    to router: Router<NotesRequestContext>, appNode: EnvironmentNode, nodes: WeakNodes
  ) {
    router.get("probe") { _, _ -> [EnvironmentProbe] in
      @Milieu.Environment(\.authenticatedUser) var user
      @Milieu.Environment(\.requestID) var requestID
      @Milieu.Environment(\.logger) var logger
      nodes.remember(EnvironmentNode.current)
      func probe() -> EnvironmentProbe {
        EnvironmentProbe(
          user: user?.name, requestID: requestID,
          loggerUser: logger.metadataProvider?.get()["user"]?.description,
          loggerRequestID: logger.metadataProvider?.get()["request.id"]?.description,
          nodeIsChildOfApp: EnvironmentNode.current.parent === appNode)
      }
      let before = probe()
      logger.info("probed")
      await Task.yield()
      return [before, probe()]
    }
  }

  @Test(arguments: StoreKind.all) func twoHundredUsersAtOnceNeverSeeEachOthersRequest(
    store: StoreKind
  ) async throws {
    let nodes = WeakNodes()
    let addProbe = { (router: Router<NotesRequestContext>) in
      Self.addProbe(to: router, appNode: EnvironmentNode.current, nodes: nodes)
    }
    try await withNotesApp(store, addRoutes: addProbe) { client, app in
      let probes = try await withThrowingTaskGroup(of: (String, [EnvironmentProbe]).self) { group in
        for index in 0..<Self.requestCount {
          group.addTask {
            let user = "user-\(index)"
            let response = try await client.send(.get, "/probe", as: user)
            return (user, try response.json([EnvironmentProbe].self))
          }
        }
        return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
      }

      #expect(probes.count == Self.requestCount)
      var requestIDs = Set<String>()
      for (user, seen) in probes {
        let first = try #require(seen.first)
        #expect(seen == [first, first], "the environment changed while \(user)'s handler waited")
        #expect(first.user == user)
        #expect(first.loggerUser == user)
        #expect(first.loggerRequestID == first.requestID)
        #expect(first.nodeIsChildOfApp)
        requestIDs.insert(try #require(first.requestID))
      }
      #expect(requestIDs.count == Self.requestCount)

      let logged = app.logs.entries.filter { $0.message.description == "probed" }
      #expect(logged.count == Self.requestCount)
      for entry in logged {
        let user = try #require(entry.metadata["user"]?.description)
        #expect(entry.metadata["request.id"]?.description == probes[user]?.first?.requestID)
      }

      #expect(nodes.count == Self.requestCount)
      #expect(await eventually { nodes.aliveCount == 0 && app.node.drawnChildCount == 0 })
    }
  }

  @Test(arguments: StoreKind.all) func twoHundredUsersCreatingAtOnceEachFindOnlyTheirOwnNote(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store) { client, app in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<Self.requestCount {
          group.addTask {
            let user = "writer-\(index)"
            let created = try await client.send(
              .post, "/notes", as: user, body: #"{"title": "note of \#(user)"}"#)
            #expect(created.status == .created)
            let listed = try await client.send(.get, "/notes", as: user).json(NoteList.self)
            #expect(listed.notes.map(\.title) == ["note of \(user)"])
            #expect(listed.notes.map(\.owner) == [user])
          }
        }
        try await group.waitForAll()
      }
      #expect(try await app.store.count() == Self.requestCount)
      #expect(app.notifications.notifications.count == Self.requestCount)
      #expect(await eventually { app.node.drawnChildCount == 0 })
    }
  }

  @Test(arguments: StoreKind.all)
  func aLiveServerDropsEveryRequestNodeOnceItsResponseIsWritten(store: StoreKind) async throws {
    let nodes = WeakNodes()
    try await withTestEnvironmentForLiveServer(store, nodes: nodes) { client, appNode in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<50 {
          group.addTask {
            let response = try await client.send(.get, "/probe", as: "live-\(index)")
            let seen = try response.json([EnvironmentProbe].self)
            #expect(seen.first?.user == "live-\(index)")
          }
        }
        try await group.waitForAll()
      }
      #expect(nodes.count == 50)
      #expect(await eventually { nodes.aliveCount == 0 && appNode.drawnChildCount == 0 })
    }
  }

  /// Runs a test against the Milieu server over a real connection on loopback.
  private func withTestEnvironmentForLiveServer(
    _ kind: StoreKind, nodes: WeakNodes,
    _ body: @Sendable (any TestClientProtocol, EnvironmentNode) async throws -> Void
  ) async throws {
    try await withStore(kind) { made in
      try await withLiveServer(made.store, nodes: nodes, body)
    }
  }

  private func withLiveServer(
    _ store: any NotesStore, nodes: WeakNodes,
    _ body: @Sendable (any TestClientProtocol, EnvironmentNode) async throws -> Void
  ) async throws {
    let appNode = EnvironmentNode.current.child("live app") { values in
      values.configuration = NotesConfiguration(port: 0)
      values.notesStore = store
      var logger = Logger(label: "NotesServerTests.live")
      logger.logLevel = .error
      values.logger = logger
    }
    let router = appNode.withCurrent {
      let router = NotesApplication.makeRouter()
      Self.addProbe(to: router, appNode: appNode, nodes: nodes)
      return router
    }
    let application = appNode.withCurrent { NotesApplication.make(router: router) }
    try await application.test(.live) { client in try await body(client, appNode) }
  }
}
