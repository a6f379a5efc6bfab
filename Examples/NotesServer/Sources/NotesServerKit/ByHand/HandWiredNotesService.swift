import Logging

/// The by-hand counterpart of ``NotesService``: the same logic, built once from the shared
/// services it is handed, and told by each call which request it is for.
///
/// Where Milieu's `notify` action logs with the logger of the node current when it is called,
/// this one logs with the caller's logger, which each call passes in.
public final class HandWiredNotesService: Sendable {
  private let store: any NotesStore
  private let clock: any Clock<Duration>
  private let deletionTokenLifetime: Duration

  /// Creates the service.
  ///
  /// - Parameter app: What every request shares.
  public init(app: HandWiredAppServices) {
    self.store = app.store
    self.clock = app.clock
    self.deletionTokenLifetime = app.configuration.deletionTokenLifetime
  }

  /// The user's notes, oldest first.
  ///
  /// - Parameter caller: The request's user and logger.
  /// - Returns: The notes.
  /// - Throws: ``APIError`` 503 when the store cannot be reached.
  public func notes(for caller: NotesCaller) async throws(APIError) -> [Note] {
    let notes = try await caller.unavailable { () throws(NotesStoreError) in
      try await store.notes(of: caller.user)
    }
    caller.logger.debug("listed \(notes.count) notes")
    return notes
  }

  /// Creates a note.
  ///
  /// - Parameters:
  ///   - draft: Its title and text.
  ///   - caller: The request's user and logger.
  /// - Returns: The note.
  /// - Throws: ``APIError`` 400 for a text holding a NUL, 422 for a title that breaks a rule,
  ///   503 when the store cannot be reached; see ``NoteDraft/validate()``.
  public func create(
    _ draft: NoteDraft, for caller: NotesCaller
  ) async throws(APIError) -> Note {
    try draft.validate()
    let note = try await caller.unavailable { () throws(NotesStoreError) in
      try await store.add(draft, owner: caller.user)
    }
    caller.logger.debug("created note \(note.id)")
    notify(.created(note), caller)
    return note
  }

  /// Deletes one of the user's notes.
  ///
  /// - Parameters:
  ///   - id: The note's id.
  ///   - caller: The request's user and logger.
  /// - Throws: ``APIError`` 404 if the user has no such note, 503 when the store cannot be
  ///   reached.
  public func delete(id: Int, for caller: NotesCaller) async throws(APIError) {
    let removed = try await caller.unavailable { () throws(NotesStoreError) in
      try await store.remove(id: id, owner: caller.user)
    }
    guard let note = removed else {
      throw .notFound("\(caller.user) has no note \(id)")
    }
    caller.logger.debug("deleted note \(id)")
    notify(.deleted(note), caller)
  }

  /// Issues the token that confirms deleting all the user's notes.
  ///
  /// - Parameter caller: The request's user and logger.
  /// - Returns: The token and how long it stays valid.
  public func issueDeletionToken(for caller: NotesCaller) -> DeletionTokenResponse {
    let lifetime = deletionTokenLifetime
    let token = store.deletionTokens.issue(for: caller.user, clock: clock, lifetime: lifetime)
    caller.logger.debug("issued a deletion token")
    return DeletionTokenResponse(token: token, expiresInSeconds: Int(lifetime.components.seconds))
  }

  /// Deletes all the user's notes, if the token confirms it.
  ///
  /// - Parameters:
  ///   - token: The token, or `nil` if the request carries none.
  ///   - caller: The request's user and logger.
  /// - Returns: How many notes were deleted.
  /// - Throws: ``APIError`` 400 without a token, 403 for a wrong or expired one, 503 when the
  ///   store cannot be reached (the token then stays valid).
  public func deleteAll(
    confirmedBy token: String?, for caller: NotesCaller
  ) async throws(APIError) -> DeletedAllResponse {
    guard let token, !token.isEmpty else {
      throw .badRequest(
        "missing confirmation token: POST /notes/deletion-token, then DELETE /notes?confirm=TOKEN"
      )
    }
    let redeemed = try store.deletionTokens.redeem(token, of: caller.user, clock: clock)
    let count: Int
    do {
      count = try await caller.unavailable { () throws(NotesStoreError) in
        try await store.removeAll(of: caller.user)
      }
    } catch {
      store.deletionTokens.restore(redeemed)
      throw error
    }
    caller.logger.debug("deleted all \(count) notes")
    notify(.deletedAll(owner: caller.user.name, count: count), caller)
    return DeletedAllResponse(deleted: count)
  }

  /// Logs a notification with the caller's logger, as Milieu's live `notify` does with the
  /// current node's.
  private func notify(_ notification: NoteNotification, _ caller: NotesCaller) {
    caller.logger.info("notify: \(notification)")
  }
}
