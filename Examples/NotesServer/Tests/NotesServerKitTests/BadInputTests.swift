import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotesServerKit
import Testing

/// Each kind of bad request gets its status and a JSON error that names what was wrong, and
/// leaves nothing behind: no note, no notification, no request node.
@Suite("Bad input")
struct BadInputTests {
  /// The user header is checked before routing, so a route that does not exist is
  /// unauthorized too: a client without a user learns nothing of the routes.
  @Test(arguments: StoreKind.all, ["/notes", "/nope"])
  func aRequestWithoutAUserHeaderIsUnauthorized(store: StoreKind, path: String) async throws {
    try await withNotesApp(store) { client, app in
      let response = try await client.send(.get, path, as: nil)
      #expect(response.status == .unauthorized)
      #expect(
        try response.apiError().message
          == "missing X-User header: name the user the request acts for")
      #expect(try response.apiError().status == 401)
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(arguments: StoreKind.all) func twoUserHeadersAreUnauthorizedAsTwo(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      let name = try #require(HTTPField.Name("X-User"))
      var headers = HTTPFields()
      headers.append(HTTPField(name: name, value: "alice"))
      headers.append(HTTPField(name: name, value: "bob"))
      let response = try await client.execute(uri: "/notes", method: .get, headers: headers)
      #expect(response.status == .unauthorized)
      #expect(
        try response.apiError().message
          == "malformed X-User header: the request has 2 of them; send exactly one")
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(
    arguments: StoreKind.all,
    [("ädä", "U+00E4"), ("a\u{308}da", "U+0308"), ("ada lovelace", "U+0020")])
  func aUserNameOutsideTheRuleNamesTheCharacter(
    store: StoreKind, example: (user: String, scalar: String)
  ) async throws {
    let (user, scalar) = example
    try await withNotesApp(store) { client, _ in
      let response = try await client.send(.get, "/notes", as: user)
      #expect(response.status == .unauthorized)
      #expect(
        try response.apiError().message
          == "malformed X-User header: a user name has only ASCII letters, digits, '.', '_' and"
          + " '-', not \(scalar)")
    }
  }

  @Test(
    arguments: StoreKind.all,
    ["", "two words", "semi;colon", "émile", String(repeating: "a", count: 65)])
  func aMalformedUserHeaderIsUnauthorized(store: StoreKind, user: String) async throws {
    try await withNotesApp(store) { client, app in
      let response = try await client.send(.post, "/notes", as: user, body: #"{"title": "x"}"#)
      #expect(response.status == .unauthorized)
      #expect(try response.apiError().message.hasPrefix("malformed X-User header: "))
      #expect(try await app.store.count() == 0)
      #expect(app.notifications.notifications == [])
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(
    arguments: StoreKind.all,
    [
      (#"{"title": "unfinished"#, "malformed JSON body: not valid JSON"),
      ("title=form", "malformed JSON body: not valid JSON"),
      (#"{"text": "no title"}"#, "malformed JSON body: missing field 'title'"),
      (#"{"title": 42}"#, "malformed JSON body: 'title' should be a string"),
      (#"{"title": null}"#, "malformed JSON body: 'title' should be a string, not null"),
      (#"["title"]"#, "malformed JSON body: the top level should be an object"),
      ("", "the request has no body: send a JSON object"),
    ])
  func aMalformedBodyIsABadRequest(
    store: StoreKind, example: (body: String, message: String)
  ) async throws {
    let (body, message) = example
    try await withNotesApp(store) { client, app in
      let response = try await client.send(.post, "/notes", as: "alice", body: body)
      #expect(response.status == .badRequest)
      #expect(try response.apiError().message == message)
      #expect(try await app.store.count() == 0)
      #expect(app.notifications.notifications == [])
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(
    arguments: StoreKind.all,
    [
      (
        #"{"title": "   "}"#,
        "a note's title must not be empty: spaces and invisible characters do not count"
      ),
      (
        #"{"title": "\#(String(repeating: "t", count: 201))"}"#,
        "a note's title has at most 200 characters, not 201"
      ),
      (
        #"{"title": "a\#(String(repeating: "\u{301}", count: 4_000))"}"#,
        "a note's title has at most 1000 Unicode scalars (each accent or joiner counts), not 4001"
      ),
    ])
  func aDraftThatBreaksARuleIsUnprocessable(
    store: StoreKind, example: (body: String, message: String)
  ) async throws {
    let (body, message) = example
    try await withNotesApp(store) { client, app in
      let response = try await client.send(.post, "/notes", as: "alice", body: body)
      #expect(response.status == .unprocessableContent)
      #expect(try response.apiError().message == message)
      #expect(try await app.store.count() == 0)
    }
  }

  /// A text holding a NUL is refused whole, saying why: nothing of it is kept, neither cut at
  /// the NUL nor in part.
  @Test(arguments: StoreKind.all) func aTextHoldingANULIsABadRequestAndNothingIsKept(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store) { client, app in
      let draft = NoteDraft(title: "Kept whole", text: "keep this\u{0}and this")
      let response = try await client.create(draft, as: "alice")
      #expect(response.status == .badRequest)
      #expect(
        try response.apiError().message
          == "a note's text must not hold a NUL character (U+0000), which the store cannot keep:"
          + " the first comes after 9 characters; send the text without it")
      #expect(try await app.store.count() == 0)
      #expect(app.notifications.notifications == [])
      let listed = try await client.send(.get, "/notes", as: "alice").json(NoteList.self)
      #expect(listed.notes == [])
    }
  }

  @Test(arguments: StoreKind.all) func anOversizedBodyIsTooLarge(store: StoreKind) async throws {
    let configuration = NotesConfiguration(maximumBodySize: 1_024)
    try await withNotesApp(store, configuration: configuration) { client, app in
      let text = String(repeating: "a", count: 2_000)
      let response = try await client.send(
        .post, "/notes", as: "alice", body: #"{"title": "big", "text": "\#(text)"}"#)
      #expect(response.status == .contentTooLarge)
      #expect(try response.apiError().message == "the request body is larger than 1024 bytes")
      #expect(try await app.store.count() == 0)
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(
    arguments: StoreKind.all,
    [
      (HTTPRequest.Method.get, "/nothing-here"), (.post, "/notes/1"), (.put, "/notes"),
    ])
  func anUnknownRouteIsNotFound(
    store: StoreKind, request: (method: HTTPRequest.Method, path: String)
  ) async throws {
    let (method, path) = request
    try await withNotesApp(store) { client, app in
      let response = try await client.send(method, path, as: "alice", body: "{}")
      #expect(response.status == .notFound)
      #expect(try response.apiError().message == "no route for \(method) \(path)")
      #expect(app.node.drawnChildCount == 0)
    }
  }

  @Test(arguments: StoreKind.all) func aTitleOfTwoHundredAccentedCharactersIsAccepted(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store) { client, app in
      let title = String(repeating: "e\u{301}", count: 200)
      let response = try await client.create(NoteDraft(title: title), as: "alice")
      #expect(response.status == .created)
      #expect(try await app.store.count() == 1)
    }
  }

  @Test(arguments: StoreKind.all, ["abc", "0", "-3", "1.5", "+1", "01", "%2B1", "1%20", "%3"])
  func aNoteIDNotWrittenAsTheServerWritesItIsABadRequest(store: StoreKind, id: String) async throws
  {
    try await withNotesApp(store) { client, _ in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      let response = try await client.send(.delete, "/notes/\(id)", as: "alice")
      #expect(response.status == .badRequest)
      #expect(
        try response.apiError().message
          == "a note id is a positive number in decimal digits, with no sign or leading zero,"
          + " such as 42; not '\(id)'")
    }
  }

  @Test(arguments: StoreKind.all) func aNoteIDPastTheLargestIntegerSaysTheLimit(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, _ in
      let response = try await client.send(.delete, "/notes/99999999999999999999", as: "alice")
      #expect(response.status == .badRequest)
      #expect(
        try response.apiError().message
          == "a note id is at most 9223372036854775807, not '99999999999999999999'")
    }
  }

  @Test(arguments: StoreKind.all) func aPercentEncodedNoteIDIsTheIDItEncodes(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      let note = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Old"}"#)
        .json(Note.self)
      #expect(note.id == 1)
      let response = try await client.send(.delete, "/notes/%31", as: "alice")
      #expect(response.status == .noContent)
      #expect(try await app.store.count() == 0)
    }
  }

  @Test(arguments: StoreKind.all) func headAnswersAsGetDoesWithoutABody(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, _ in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Standup"}"#)
      let get = try await client.send(.get, "/notes", as: "alice")
      let head = try await client.send(.head, "/notes", as: "alice")
      #expect(head.status == .ok)
      #expect(head.body.readableBytes == 0)
      #expect(head.headers[.contentLength] == get.headers[.contentLength])
      #expect(try await client.send(.head, "/me", as: "alice").status == .ok)

      for (path, user, status) in [
        ("/notes", nil, HTTPResponse.Status.unauthorized), ("/nope", "alice", .notFound),
      ] {
        let refused = try await client.send(.head, path, as: user)
        #expect(refused.status == status)
        #expect(refused.body.readableBytes == 0)
      }
    }
  }

  @Test(arguments: StoreKind.all) func deletingAllWithoutATokenIsABadRequest(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      for uri in ["/notes", "/notes?confirm="] {
        let response = try await client.send(.delete, uri, as: "alice")
        #expect(response.status == .badRequest)
        #expect(try response.apiError().message.hasPrefix("missing confirmation token"))
      }
      #expect(try await app.store.count() == 1)
    }
  }

  @Test(arguments: StoreKind.all) func deletingAllBeforeAnyTokenWasIssuedIsForbidden(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      let response = try await client.send(.delete, "/notes?confirm=guess", as: "alice")
      #expect(response.status == .forbidden)
      #expect(
        try response.apiError().message
          == "no confirmation token is pending for alice: POST /notes/deletion-token first")
      #expect(try await app.store.count() == 1)
    }
  }

  @Test(arguments: StoreKind.all) func aTokenUsedTwiceIsForbiddenAsUsed(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Go"}"#)
      let token = try await client.send(.post, "/notes/deletion-token", as: "alice")
        .json(DeletionTokenResponse.self).token
      let first = try await client.send(.delete, "/notes?confirm=\(token)", as: "alice")
      #expect(try first.json(DeletedAllResponse.self).deleted == 1)

      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      let again = try await client.send(.delete, "/notes?confirm=\(token)", as: "alice")
      #expect(again.status == .forbidden)
      #expect(
        try again.apiError().message
          == "this confirmation token was already used: POST /notes/deletion-token for a new one")
      #expect(try await app.store.count() == 1)

      let guess = try await client.send(.delete, "/notes?confirm=guess", as: "alice")
      #expect(
        try guess.apiError().message
          == "no confirmation token is pending for alice: POST /notes/deletion-token first")
    }
  }

  @Test(arguments: StoreKind.all) func aWrongTokenIsForbiddenAndLeavesTheRightOneValid(
    store: StoreKind
  ) async throws {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      let token = try await client.send(.post, "/notes/deletion-token", as: "alice")
        .json(DeletionTokenResponse.self).token

      let wrong = try await client.send(.delete, "/notes?confirm=not-\(token)", as: "alice")
      #expect(wrong.status == .forbidden)
      #expect(try wrong.apiError().message == "wrong confirmation token for alice")
      let someoneElses = try await client.send(.delete, "/notes?confirm=\(token)", as: "mallory")
      #expect(someoneElses.status == .forbidden)
      #expect(try await app.store.count() == 1)
      #expect(app.notifications.notifications.count == 1)

      let right = try await client.send(.delete, "/notes?confirm=\(token)", as: "alice")
      #expect(try right.json(DeletedAllResponse.self).deleted == 1)
    }
  }

  @Test(arguments: StoreKind.all) func anExpiredTokenIsForbidden(store: StoreKind) async throws {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Keep"}"#)
      let token = try await client.send(.post, "/notes/deletion-token", as: "alice")
        .json(DeletionTokenResponse.self).token

      app.clock.advance(by: .seconds(60))
      let response = try await client.send(.delete, "/notes?confirm=\(token)", as: "alice")
      #expect(response.status == .forbidden)
      #expect(
        try response.apiError().message
          == "confirmation token expired: POST /notes/deletion-token for a new one")
      #expect(try await app.store.count() == 1)
    }
  }

  @Test(arguments: StoreKind.all) func aTokenIsValidUntilItsLifetimeEnds(store: StoreKind)
    async throws
  {
    try await withNotesApp(store) { client, app in
      _ = try await client.send(.post, "/notes", as: "alice", body: #"{"title": "Go"}"#)
      let token = try await client.send(.post, "/notes/deletion-token", as: "alice")
        .json(DeletionTokenResponse.self).token

      app.clock.advance(by: .seconds(59))
      let response = try await client.send(.delete, "/notes?confirm=\(token)", as: "alice")
      #expect(try response.json(DeletedAllResponse.self).deleted == 1)
    }
  }
}
