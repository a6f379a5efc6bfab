import Milieu
import Testing

// README: begin
struct APIClient: Sendable {
  var baseURL: String
}

final class NotesRepository: Sendable {
  let api: APIClient
  init(api: APIClient) { self.api = api }
}

extension EnvironmentValues {
  static let apiClient = Entry(APIClient(baseURL: "https://api.example.com"))
  var apiClient: APIClient {
    get { self[Self.apiClient] }
    set { self[Self.apiClient] = newValue }
  }

  static let notesRepository = Derived { values in NotesRepository(api: values.apiClient) }
  var notesRepository: NotesRepository { self[Self.notesRepository] }
}
// README: end

@Suite struct ReadmeServiceGraphTests {
  @Test func aRepositoryFollowsTheClientItWasBuiltOn() {
    var printed: [String] = []
    func print(_ item: Any) { printed.append("\(item)") }

    // README: begin
    let app = EnvironmentNode("app")
    let beta = app.child("beta") { $0.apiClient = APIClient(baseURL: "https://beta.example.com") }
    let request = app.child("request")

    print(app[\.notesRepository].api.baseURL)  // https://api.example.com
    print(beta[\.notesRepository].api.baseURL)  // https://beta.example.com, built for beta
    print(request[\.notesRepository] === app[\.notesRepository])  // true: same inputs, one value
    // README: end

    #expect(printed == ["https://api.example.com", "https://beta.example.com", "true"])
  }
}
