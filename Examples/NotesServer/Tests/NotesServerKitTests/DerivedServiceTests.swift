import Hummingbird
import HummingbirdTesting
import Milieu
import NotesServerKit
import Synchronization
import Testing

/// Keeps every service a request was handed, alive, so that identities cannot be reused.
final class SeenServices: Sendable {
  private let services = Mutex<[NotesService]>([])

  func remember(_ service: NotesService) {
    services.withLock { $0.append(service) }
  }

  /// The services seen so far, and forgets them.
  func take() -> [NotesService] {
    services.withLock { services in
      defer { services = [] }
      return services
    }
  }
}

/// `notesService` is a derived value: built once from the app node's values and shared by every
/// request, rebuilt where one of its inputs is overridden.
@Suite("The derived notes service")
struct DerivedServiceTests {
  /// Adds `GET /service`, whose handler remembers the service its request reads.
  static func addServiceProbe(to router: Router<NotesRequestContext>, seen: SeenServices) {
    router.get("service") { _, _ -> String in
      seen.remember(EnvironmentNode.current.values.notesService)
      return "ok"
    }
  }

  /// Sends `count` requests at once to `GET /service`, each as a user of its own.
  static func burst(_ count: Int, _ client: any TestClientProtocol) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        group.addTask {
          let response = try await client.send(.get, "/service", as: "user-\(index)")
          #expect(response.status == .ok)
        }
      }
      try await group.waitForAll()
    }
  }

  @Test(arguments: StoreKind.all)
  func everyRequestSharesTheAppsServiceAndAnOverriddenInputRebuildsIt(store: StoreKind) async throws
  {
    let seen = SeenServices()
    let addProbe = { (router: Router<NotesRequestContext>) in
      Self.addServiceProbe(to: router, seen: seen)
    }
    try await withNotesApp(store, addRoutes: addProbe) { client, app in
      try await Self.burst(100, client)
      let first = seen.take()
      #expect(first.count == 100)
      let appService = app.node[\.notesService]
      #expect(first.allSatisfy { $0 === appService }, "a request built a service of its own")
      #expect(appService.store === app.store)

      // A write to an input, on the app node, rebuilds the service for every request after it.
      try await withStore(store) { other in
        let newStore = other.store
        app.node.set(\.notesStore, to: newStore)
        try await Self.burst(50, client)
        let second = seen.take()
        let rebuilt = app.node[\.notesService]
        #expect(rebuilt !== appService)
        #expect(rebuilt.store === newStore)
        #expect(second.count == 50)
        #expect(second.allSatisfy { $0 === rebuilt })

        let created = try await client.send(
          .post, "/notes", as: "alice", body: #"{"title": "New"}"#)
        #expect(created.status == .created)
        let alice = try AuthenticatedUser(headerValue: "alice")
        #expect(try await newStore.notes(of: alice).map(\.title) == ["New"])
        #expect(try await app.store.notes(of: alice) == [])
        #expect(await eventually { app.node.drawnChildCount == 0 })
      }
    }
  }

  @Test(arguments: StoreKind.all) func aServiceIsNotSharedAcrossAppsWithOtherInputs(
    store: StoreKind
  ) async throws {
    let seen = SeenServices()
    let addProbe: @Sendable (Router<NotesRequestContext>) -> Void = { router in
      Self.addServiceProbe(to: router, seen: seen)
    }
    let services = try await withNotesApp(store, addRoutes: addProbe) { firstClient, first in
      try await withNotesApp(store, addRoutes: addProbe) { secondClient, second in
        try await Self.burst(10, firstClient)
        let firstSeen = seen.take()
        try await Self.burst(10, secondClient)
        let secondSeen = seen.take()
        #expect(firstSeen.allSatisfy { $0.store === first.store })
        #expect(secondSeen.allSatisfy { $0.store === second.store })
        return (firstSeen, secondSeen)
      }
    }
    #expect(Set(services.0.map(ObjectIdentifier.init)).count == 1)
    #expect(Set(services.1.map(ObjectIdentifier.init)).count == 1)
    #expect(services.0.first !== services.1.first)
  }
}
