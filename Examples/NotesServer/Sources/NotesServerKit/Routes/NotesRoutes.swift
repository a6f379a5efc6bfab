import Hummingbird
import Milieu

/// The notes API's handlers: each decodes what the request carries, calls ``NotesService``,
/// and encodes the answer.
///
/// Each handler runs in the request's node and reads its values once, as
/// `EnvironmentNode.current.values`: from them it takes the app's shared ``NotesService`` (a
/// derived value, built once per app) and the request's ``NotesCaller`` (its user and logger),
/// and passes the one to the other.
///
/// | route | answer |
/// |---|---|
/// | `GET /notes` | 200, ``NoteList`` |
/// | `POST /notes` with a ``NoteDraft`` | 201, the ``Note`` |
/// | `DELETE /notes/:id` | 204 |
/// | `POST /notes/deletion-token` | 201, ``DeletionTokenResponse`` |
/// | `DELETE /notes?confirm=TOKEN` | 200, ``DeletedAllResponse`` |
/// | `GET /me` | 200, ``WhoAmIResponse`` |
public enum NotesRoutes {
  /// Adds the routes to a router.
  ///
  /// - Parameter router: The router, whose middleware must include a
  ///   ``RequestEnvironmentMiddleware`` added before this call.
  public static func addRoutes<Context: RequestContext>(to router: Router<Context>) {
    router.get("notes") { _, _ in try await list() }
    router.post("notes") { request, _ in try await create(request) }
    router.delete("notes/:id") { _, context in
      try await delete(id: context.parameters.get("id"))
    }
    router.post("notes/deletion-token") { _, _ in try issueDeletionToken() }
    router.delete("notes") { request, _ in
      try await deleteAll(confirmedBy: request.uri.queryParameters.get("confirm"))
    }
    router.get("me") { _, _ in try whoAmI() }
  }

  /// `GET /notes`.
  ///
  /// - Returns: The user's notes.
  /// - Throws: ``APIError`` 401 outside a request, 503 when the store cannot be reached.
  public static func list() async throws(APIError) -> NoteList {
    let request = EnvironmentNode.current.values
    return NoteList(notes: try await request.notesService.notes(for: try request.notesCaller()))
  }

  /// `POST /notes`.
  ///
  /// - Parameter request: The request, whose body is a ``NoteDraft``.
  /// - Returns: 201 and the new note.
  /// - Throws: ``APIError``: 400 for a malformed body or a text holding a NUL, 413 for a body
  ///   too large, 422 for a title that breaks a rule, 503 when the store cannot be reached.
  public static func create(_ request: Request) async throws(APIError) -> EditedResponse<Note> {
    let values = EnvironmentNode.current.values
    let caller = try values.notesCaller()
    let draft = try await request.decodeJSONBody(
      NoteDraft.self, maximumSize: values.configuration.maximumBodySize)
    let note = try await values.notesService.create(draft, for: caller)
    return EditedResponse(status: .created, response: note)
  }

  /// `DELETE /notes/:id`.
  ///
  /// - Parameter rawID: The `:id` path parameter.
  /// - Returns: 204.
  /// - Throws: ``APIError``: 400 for an id that is not a positive integer in decimal digits,
  ///   404 for a note the user does not have, 503 when the store cannot be reached.
  public static func delete(id rawID: String?) async throws(APIError) -> HTTPResponse.Status {
    let request = EnvironmentNode.current.values
    try await request.notesService.delete(
      id: try Self.noteID(rawID), for: try request.notesCaller())
    return .noContent
  }

  /// `POST /notes/deletion-token`.
  ///
  /// - Returns: 201 and the token.
  /// - Throws: ``APIError`` 401 outside a request.
  public static func issueDeletionToken() throws(APIError) -> EditedResponse<DeletionTokenResponse>
  {
    let request = EnvironmentNode.current.values
    let token = request.notesService.issueDeletionToken(for: try request.notesCaller())
    return EditedResponse(status: .created, response: token)
  }

  /// `DELETE /notes?confirm=TOKEN`.
  ///
  /// - Parameter token: The `confirm` query parameter.
  /// - Returns: How many notes were deleted.
  /// - Throws: ``APIError``: 400 without a token, 403 for a wrong or expired one, 401 outside
  ///   a request, 503 when the store cannot be reached.
  public static func deleteAll(
    confirmedBy token: String?
  ) async throws(APIError) -> DeletedAllResponse {
    let request = EnvironmentNode.current.values
    return try await request.notesService.deleteAll(
      confirmedBy: token, for: try request.notesCaller())
  }

  /// `GET /me`.
  ///
  /// - Returns: The user and the request's id, as the environment has them.
  /// - Throws: ``APIError`` 401 outside a request.
  public static func whoAmI() throws(APIError) -> WhoAmIResponse {
    let request = EnvironmentNode.current.values
    guard let user = request.authenticatedUser, let requestID = request.requestID else {
      throw .unauthorized("no authenticated user: NotesRoutes was called outside a request")
    }
    return WhoAmIResponse(user: user.name, requestID: requestID)
  }

  /// Reads a note id from a path parameter, written as the server writes ids.
  ///
  /// Hummingbird hands path parameters over as they are in the URI, so the parameter is
  /// percent-decoded first: `%31` is `1`, as the URI standard makes them equivalent. What is
  /// left must be the id in decimal digits with no sign and no leading zero, so that each note
  /// has one URI: `+1` and `01` are refused.
  ///
  /// - Parameter rawID: The parameter.
  /// - Returns: The id.
  /// - Throws: ``APIError`` 400 unless it is a positive integer written so, or one larger than
  ///   `Int.max`, naming the limit.
  package static func noteID(_ rawID: String?) throws(APIError) -> Int {
    let rawID = rawID ?? ""
    guard let digits = percentDecoded(rawID), let first = digits.first, first != UInt8(ascii: "0"),
      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else {
      throw .badRequest(
        "a note id is a positive number in decimal digits, with no sign or leading zero, such as"
          + " 42; not '\(rawID)'")
    }
    guard let id = Int(String(decoding: digits, as: UTF8.self)) else {
      throw .badRequest("a note id is at most \(Int.max), not '\(rawID)'")
    }
    return id
  }

  /// The bytes a URI component stands for, or `nil` if a `%` is not followed by two hexadecimal
  /// digits.
  private static func percentDecoded(_ component: String) -> [UInt8]? {
    func hexValue(_ byte: UInt8?) -> UInt8? {
      switch byte {
      case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
        byte - UInt8(ascii: "0")
      case let byte? where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20):
        (byte | 0x20) - UInt8(ascii: "a") + 10
      default: nil
      }
    }
    var bytes: [UInt8] = []
    var iterator = component.utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = hexValue(iterator.next()), let low = hexValue(iterator.next()) else {
        return nil
      }
      bytes.append(high << 4 | low)
    }
    return bytes
  }
}
