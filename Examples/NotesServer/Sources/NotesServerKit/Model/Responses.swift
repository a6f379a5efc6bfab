import Hummingbird

/// The body of `GET /notes`: the user's notes, oldest first.
public struct NoteList: Sendable, Hashable, Codable, ResponseEncodable {
  /// The notes.
  public let notes: [Note]

  /// Creates a list.
  ///
  /// - Parameter notes: The notes.
  public init(notes: [Note]) { self.notes = notes }
}

/// The body of `POST /notes/deletion-token`: the token that confirms deleting all notes.
public struct DeletionTokenResponse: Sendable, Hashable, Codable, ResponseEncodable {
  /// Pass it as `DELETE /notes?confirm=<token>`.
  public let token: String
  /// How long it stays valid.
  public let expiresInSeconds: Int

  /// Creates the response.
  ///
  /// - Parameters:
  ///   - token: The token.
  ///   - expiresInSeconds: How long it stays valid.
  public init(token: String, expiresInSeconds: Int) {
    self.token = token
    self.expiresInSeconds = expiresInSeconds
  }
}

/// The body of a confirmed `DELETE /notes`: how many notes were deleted.
public struct DeletedAllResponse: Sendable, Hashable, Codable, ResponseEncodable {
  /// The number of notes deleted.
  public let deleted: Int

  /// Creates the response.
  ///
  /// - Parameter deleted: The number of notes deleted.
  public init(deleted: Int) { self.deleted = deleted }
}

/// The body of `GET /me`: who the server thinks is asking, and which request this is.
public struct WhoAmIResponse: Sendable, Hashable, Codable, ResponseEncodable {
  /// The authenticated user's name.
  public let user: String
  /// The request's id, as its log lines carry it.
  public let requestID: String

  /// Creates the response.
  ///
  /// - Parameters:
  ///   - user: The authenticated user's name.
  ///   - requestID: The request's id.
  public init(user: String, requestID: String) {
    self.user = user
    self.requestID = requestID
  }
}
