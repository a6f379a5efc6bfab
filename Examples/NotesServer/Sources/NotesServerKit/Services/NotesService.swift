import Logging
import Milieu

/// What a user can do with their notes: the server's logic, free of HTTP.
///
/// It reads everything it needs from the node that is current when it is made — in a request,
/// that request's node: the store, clock, configuration and `notify` action the app shares, and
/// the user and logger of that request alone.
///
/// ```swift
/// let service = request.withCurrent { NotesService() }
/// let note = try service.create(NoteDraft(title: "Standup"))
/// ```
public struct NotesService: Sendable {
  @Environment(\.notesStore) private var store
  @Environment(\.authenticatedUser) private var authenticatedUser
  @Environment(\.logger) private var logger
  @Environment(\.notify) private var notify
  @Environment(\.clock) private var clock
  @Environment(\.configuration) private var configuration

  /// Creates the service, bound to the current node.
  public init() {}

  /// The user's notes, oldest first.
  ///
  /// - Returns: The notes.
  /// - Throws: ``APIError`` 401 outside a request.
  public func notes() throws(APIError) -> [Note] {
    let notes = store.notes(of: try user())
    logger.debug("listed \(notes.count) notes")
    return notes
  }

  /// Creates a note.
  ///
  /// - Parameter draft: Its title and text.
  /// - Returns: The note.
  /// - Throws: ``APIError`` 422 for a draft that breaks a rule, 401 outside a request.
  public func create(_ draft: NoteDraft) throws(APIError) -> Note {
    try draft.validate()
    let note = store.add(draft, owner: try user())
    logger.debug("created note \(note.id)")
    notify(.created(note))
    return note
  }

  /// Deletes one of the user's notes.
  ///
  /// - Parameter id: The note's id.
  /// - Throws: ``APIError`` 404 if the user has no such note, 401 outside a request.
  public func delete(id: Int) throws(APIError) {
    let user = try user()
    guard let note = store.remove(id: id, owner: user) else {
      throw .notFound("\(user) has no note \(id)")
    }
    logger.debug("deleted note \(id)")
    notify(.deleted(note))
  }

  /// Issues the token that confirms deleting all the user's notes.
  ///
  /// - Returns: The token and how long it stays valid.
  /// - Throws: ``APIError`` 401 outside a request.
  public func issueDeletionToken() throws(APIError) -> DeletionTokenResponse {
    let lifetime = configuration.deletionTokenLifetime
    let token = store.issueDeletionToken(for: try user(), clock: clock, lifetime: lifetime)
    logger.debug("issued a deletion token")
    return DeletionTokenResponse(token: token, expiresInSeconds: Int(lifetime.components.seconds))
  }

  /// Deletes all the user's notes, if the token confirms it.
  ///
  /// - Parameter token: The token from ``issueDeletionToken()``, or `nil` if the request
  ///   carries none.
  /// - Returns: How many notes were deleted.
  /// - Throws: ``APIError`` 400 without a token, 403 for a wrong or expired one, 401 outside a
  ///   request.
  public func deleteAll(confirmedBy token: String?) throws(APIError) -> DeletedAllResponse {
    let user = try user()
    guard let token, !token.isEmpty else {
      throw .badRequest(
        "missing confirmation token: POST /notes/deletion-token, then DELETE /notes?confirm=TOKEN"
      )
    }
    let count = try store.removeAll(of: user, confirmedBy: token, clock: clock)
    logger.debug("deleted all \(count) notes")
    notify(.deletedAll(owner: user.name, count: count))
    return DeletedAllResponse(deleted: count)
  }

  /// The request's user.
  ///
  /// - Returns: The user.
  /// - Throws: ``APIError`` 401 when the service was made outside a request.
  private func user() throws(APIError) -> AuthenticatedUser {
    guard let authenticatedUser else {
      throw .unauthorized("no authenticated user: NotesService was made outside a request")
    }
    return authenticatedUser
  }
}
