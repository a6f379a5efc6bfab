import NotesServerKit
import ServiceLifecycle
import Testing

/// A server that runs a body: what the by-hand servers' HTTP server is to their store.
private struct ServerStandIn: Service {
  let body: @Sendable () async throws -> Void
  func run() async throws { try await body() }
}

/// The by-hand servers start their store before their server and stop it after, through the
/// same adapter as Milieu's server.
@Suite("The by-hand servers' store")
struct HandStartedStoreTests {
  /// The server runs on an open store, which is closed once the server returns.
  @Test(arguments: StoreKind.all)
  func theStoreRunsWhileTheServerRuns(store kind: StoreKind) async throws {
    try await withStore(kind, start: false) { made in
      let store = made.store
      await #expect(throws: NotesStoreError.self, "it is open before the adapter starts it") {
        try await store.count()
      }
      let server = ServerStandIn {
        let count = try await store.count()
        #expect(count == 0)
      }
      try await HandStartedStore.around(server, store: store).run()
      do throws(NotesStoreError) {
        _ = try await store.count()
        Issue.record("the store is open after the server returned")
      } catch {
        #expect(error.reason.contains("start it first, or it was stopped"), "\(error)")
      }
    }
  }

  /// A store that cannot start: the server never runs, and the error names the store.
  @Test func aStoreThatCannotStartKeepsTheServerFromRunning() async throws {
    let store = SQLiteNotesStore(
      path: "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/notes.sqlite",
      logger: TestStore.quiet)
    let service = HandStartedStore.around(
      ServerStandIn { Issue.record("the server ran without its store") }, store: store)
    let error = await #expect(throws: ServicesDidNotStart.self) { try await service.run() }
    #expect(error?.byShutdown == false)
    #expect(
      error?.description.contains(store.description) == true, "\(String(describing: error))")
  }
}
