import Logging

/// The by-hand counterpart of ``NotesService``: the same logic, with its services passed in.
public struct HandWiredNotesService: Sendable {
  private let services: HandWiredRequestServices

  /// Creates the service.
  ///
  /// - Parameter services: The request's services.
  public init(services: HandWiredRequestServices) {
    self.services = services
  }

  /// The user's notes, oldest first.
  ///
  /// - Returns: The notes.
  public func notes() -> [Note] {
    let notes = services.app.store.notes(of: services.user)
    services.logger.debug("listed \(notes.count) notes")
    return notes
  }

  /// Creates a note.
  ///
  /// - Parameter draft: Its title and text.
  /// - Returns: The note.
  /// - Throws: ``APIError`` 422 for a draft that breaks a rule.
  public func create(_ draft: NoteDraft) throws(APIError) -> Note {
    try draft.validate()
    let note = services.app.store.add(draft, owner: services.user)
    services.logger.debug("created note \(note.id)")
    services.notify(.created(note))
    return note
  }

  /// Deletes one of the user's notes.
  ///
  /// - Parameter id: The note's id.
  /// - Throws: ``APIError`` 404 if the user has no such note.
  public func delete(id: Int) throws(APIError) {
    guard let note = services.app.store.remove(id: id, owner: services.user) else {
      throw .notFound("\(services.user) has no note \(id)")
    }
    services.logger.debug("deleted note \(id)")
    services.notify(.deleted(note))
  }

  /// Issues the token that confirms deleting all the user's notes.
  ///
  /// - Returns: The token and how long it stays valid.
  public func issueDeletionToken() -> DeletionTokenResponse {
    let lifetime = services.app.configuration.deletionTokenLifetime
    let token = services.app.store.issueDeletionToken(
      for: services.user, clock: services.app.clock, lifetime: lifetime)
    services.logger.debug("issued a deletion token")
    return DeletionTokenResponse(token: token, expiresInSeconds: Int(lifetime.components.seconds))
  }

  /// Deletes all the user's notes, if the token confirms it.
  ///
  /// - Parameter token: The token, or `nil` if the request carries none.
  /// - Returns: How many notes were deleted.
  /// - Throws: ``APIError`` 400 without a token, 403 for a wrong or expired one.
  public func deleteAll(confirmedBy token: String?) throws(APIError) -> DeletedAllResponse {
    guard let token, !token.isEmpty else {
      throw .badRequest(
        "missing confirmation token: POST /notes/deletion-token, then DELETE /notes?confirm=TOKEN"
      )
    }
    let count = try services.app.store.removeAll(
      of: services.user, confirmedBy: token, clock: services.app.clock)
    services.logger.debug("deleted all \(count) notes")
    services.notify(.deletedAll(owner: services.user.name, count: count))
    return DeletedAllResponse(deleted: count)
  }
}
