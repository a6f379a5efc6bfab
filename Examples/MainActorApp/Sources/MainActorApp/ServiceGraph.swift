import Milieu

// README: begin
nonisolated struct APIClient: Sendable {
  var baseURL: String
}

nonisolated final class NotesRepository: Sendable {
  let api: APIClient
  init(api: APIClient) { self.api = api }
}

nonisolated extension EnvironmentValues {
  static let apiClient = Entry(APIClient(baseURL: "https://api.example.com"))
  var apiClient: APIClient {
    get { self[Self.apiClient] }
    set { self[Self.apiClient] = newValue }
  }

  static let notesRepository = Derived { values in NotesRepository(api: values.apiClient) }
  var notesRepository: NotesRepository { self[Self.notesRepository] }
}

struct NotesScreen {  // on the main actor, as everything else in the module
  @Environment(\.notesRepository) var repository
}
// README: end

/// The README's service graph, on the main actor; `print` receives what it prints.
func runServiceGraph(_ print: (Any) -> Void) {
  let app = EnvironmentNode("app")
  let beta = app.child("beta") { $0.apiClient = APIClient(baseURL: "https://beta.example.com") }
  let request = app.child("request")

  print(app[\.notesRepository].api.baseURL)  // https://api.example.com
  print(beta[\.notesRepository].api.baseURL)  // https://beta.example.com, built for beta
  print(request[\.notesRepository] === app[\.notesRepository])  // true: same inputs, one value
  print(beta.withCurrent { NotesScreen() }.repository.api.baseURL)  // https://beta.example.com
}
