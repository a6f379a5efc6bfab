// What the blocks of *Building a service graph* use and do not declare; see
// scripts/article-blocks.py.
import Milieu

final class Session: Sendable {
  let api: APIClient
  init(api: APIClient) { self.api = api }
}

struct RequestID: Sendable {}

struct Configuration: Sendable {
  static let standard = Configuration()
  init() {}
  init(contentsOf file: String) throws {}
}

extension EnvironmentValues {
  static let configurationFile = Entry("configuration.json")
  var configurationFile: String {
    get { self[Self.configurationFile] }
    set { self[Self.configurationFile] = newValue }
  }
}
