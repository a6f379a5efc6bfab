import HTTPTypes
import HummingbirdTesting
import Logging
import NotesServerKit
import Testing

/// The by-hand server, which `load.sh` measures Milieu against, answers exactly as Milieu's
/// does, so that the two are the same server; `DependenciesApplicationTests` checks the third.
@Suite("The by-hand variant")
struct HandWiredApplicationTests {
  /// A session of requests, and what each answered: status and body, with request ids blanked.
  static func session(_ client: any TestClientProtocol) async throws -> [String] {
    var answers: [String] = []
    func record(_ response: TestResponse) {
      var body = String(buffer: response.body)
      if let me = try? response.json(WhoAmIResponse.self) {
        body = body.replacing(me.requestID, with: "<id>")
      }
      answers.append("\(response.status.code) \(body)")
    }
    record(try await client.send(.get, "/notes", as: "alice"))
    record(try await client.send(.post, "/notes", as: "alice", body: #"{"title": "A"}"#))
    record(try await client.send(.post, "/notes", as: "alice", body: #"{"title": "B"}"#))
    record(try await client.send(.delete, "/notes/1", as: "alice"))
    record(try await client.send(.get, "/notes", as: "alice"))
    record(try await client.send(.get, "/me", as: "alice"))
    record(try await client.send(.get, "/notes", as: nil))
    record(try await client.send(.post, "/notes", as: "alice", body: "{"))
    record(try await client.send(.delete, "/notes/x", as: "alice"))
    record(try await client.send(.delete, "/notes", as: "alice"))
    record(try await client.send(.delete, "/notes?confirm=nope", as: "alice"))
    record(try await client.send(.get, "/missing", as: "alice"))
    record(try await client.send(.get, "/missing", as: nil))
    record(try await client.send(.head, "/notes", as: "alice"))
    record(try await client.send(.head, "/missing", as: "alice"))
    record(try await client.create(NoteDraft(title: "line\nbreak"), as: "alice"))
    record(try await client.create(NoteDraft(title: "\u{200B}"), as: "alice"))
    record(try await client.send(.delete, "/notes/%32", as: "alice"))
    record(try await client.send(.delete, "/notes/+3", as: "alice"))
    record(try await client.send(.delete, "/notes/99999999999999999999", as: "alice"))
    record(try await client.send(.get, "/notes", as: "ädä"))
    let userHeader = try #require(HTTPField.Name("X-User"))
    var twoUsers = HTTPFields()
    twoUsers.append(HTTPField(name: userHeader, value: "alice"))
    twoUsers.append(HTTPField(name: userHeader, value: "bob"))
    record(try await client.execute(uri: "/notes", method: .get, headers: twoUsers))
    let token = try await client.send(.post, "/notes/deletion-token", as: "alice")
      .json(DeletionTokenResponse.self).token
    record(try await client.send(.delete, "/notes?confirm=\(token)", as: "alice"))
    record(try await client.send(.delete, "/notes?confirm=\(token)", as: "alice"))
    return answers
  }

  @Test(arguments: StoreKind.all) func itAnswersEveryRequestAsMilieusServerDoes(store: StoreKind)
    async throws
  {
    let milieuAnswers = try await withNotesApp(store) { client, _ in try await Self.session(client)
    }

    let byHandAnswers = try await withStore(store) { made in
      let services = HandWiredAppServices(
        configuration: NotesConfiguration(), logger: Logger(label: "NotesServerTests.byHand"),
        store: made.store)
      return try await HandWiredApplication.make(services: services).test(.router) {
        try await Self.session($0)
      }
    }
    #expect(byHandAnswers == milieuAnswers)
    #expect(milieuAnswers.count == 24)
  }
}
