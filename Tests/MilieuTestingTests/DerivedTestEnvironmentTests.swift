import Milieu
import MilieuTesting
import Testing

/// An API client the test environments replace.
struct APIClient: Sendable {
  var baseURL: String
}

/// Built from the client; tests never override it.
final class NotesRepository: Sendable {
  let api: APIClient
  init(api: APIClient) { self.api = api }
}

/// Built from the repository.
final class SyncService: Sendable {
  let repository: NotesRepository
  init(repository: NotesRepository) { self.repository = repository }
}

extension EnvironmentValues {
  static let apiClient = Entry(APIClient(baseURL: "https://live.example"))
  var apiClient: APIClient {
    get { self[Self.apiClient] }
    set { self[Self.apiClient] = newValue }
  }

  static let notesRepository = Derived { NotesRepository(api: $0.apiClient) }
  var notesRepository: NotesRepository { self[Self.notesRepository] }

  static let syncService = Derived { SyncService(repository: $0.notesRepository) }
  var syncService: SyncService { self[Self.syncService] }
}

/// Reads the service the way production code does.
struct SyncScreen {
  @Environment(\.syncService) var sync
}

/// A test environment that overrides a client rebuilds what is derived from it, for that test
/// alone, while other tests run in parallel.
@Suite struct DerivedTestEnvironmentTests {
  @Test(arguments: 0..<64)
  func eachTestGetsServicesBuiltOnItsOwnMock(index: Int) async {
    let mock = APIClient(baseURL: "https://mock-\(index).test")
    await withTestEnvironment(.set(\.apiClient, mock)) {
      let screen = SyncScreen()
      await Task.yield()  // let the other tests interleave
      #expect(screen.sync.repository.api.baseURL == mock.baseURL)
      #expect(EnvironmentNode.current[\.notesRepository].api.baseURL == mock.baseURL)
      #expect(screen.sync.repository === EnvironmentNode.current[\.notesRepository])
    }
  }

  @Test func outsideATestEnvironmentTheServicesAreBuiltOnTheLiveClient() {
    let app = EnvironmentNode("app")
    #expect(app[\.syncService].repository.api.baseURL == "https://live.example")
  }
}
