import Logging
import Milieu
import Tracing

/// What a user can do with their notes: the server's logic, free of HTTP.
///
/// One service serves every request of an app: it holds what the app shares (the store, the
/// clock, the `notify` action and the tokens' lifetime), and each call is told which request it
/// is for by a ``NotesCaller``, the user and the logger of that request. In Milieu's server it
/// is a derived value, `EnvironmentValues.notesService`, built once from the app node's values
/// and rebuilt only where one of them is overridden:
///
/// ```swift
/// let request = EnvironmentNode.current.values
/// let notes = request.notesService.notes(for: try request.notesCaller())
/// ```
///
/// The by-hand server builds one itself and passes it the same caller, made by hand.
public final class NotesService: Sendable {
  /// Where the notes live.
  public let store: any NotesStore
  /// The clock that times confirmation tokens.
  public let clock: any Clock<Duration>
  /// Tells someone that notes changed.
  public let notify: NotifyAction
  /// How long a delete-all confirmation token stays valid.
  public let deletionTokenLifetime: Duration

  /// Creates the service.
  ///
  /// - Parameters:
  ///   - store: Where the notes live.
  ///   - clock: The clock that times confirmation tokens.
  ///   - notify: Tells someone that notes changed.
  ///   - deletionTokenLifetime: How long a delete-all confirmation token stays valid.
  public init(
    store: any NotesStore, clock: any Clock<Duration>, notify: NotifyAction,
    deletionTokenLifetime: Duration
  ) {
    self.store = store
    self.clock = clock
    self.notify = notify
    self.deletionTokenLifetime = deletionTokenLifetime
  }

  /// The user's notes, oldest first.
  ///
  /// - Parameter caller: The request's user and logger.
  /// - Returns: The notes.
  /// - Throws: ``APIError`` 503 when the store cannot be reached.
  public func notes(for caller: NotesCaller) async throws(APIError) -> [Note] {
    let notes = try await traced("notes.list", caller) { () throws(NotesStoreError) in
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
    let note = try await traced("notes.add", caller) { () throws(NotesStoreError) in
      try await store.add(draft, owner: caller.user)
    }
    caller.logger.debug("created note \(note.id)")
    notify(.created(note))
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
    let removed = try await traced("notes.remove", caller) { () throws(NotesStoreError) in
      try await store.remove(id: id, owner: caller.user)
    }
    guard let note = removed else {
      throw .notFound("\(caller.user) has no note \(id)")
    }
    caller.logger.debug("deleted note \(id)")
    notify(.deleted(note))
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
  ///   - token: The token from ``issueDeletionToken(for:)``, or `nil` if the request carries
  ///     none.
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
      count = try await traced("notes.remove-all", caller) { () throws(NotesStoreError) in
        try await store.removeAll(of: caller.user)
      }
    } catch {
      store.deletionTokens.restore(redeemed)
      throw error
    }
    caller.logger.debug("deleted all \(count) notes")
    notify(.deletedAll(owner: caller.user.name, count: count))
    return DeletedAllResponse(deleted: count)
  }
}

extension NotesService {
  /// Runs a call to the store in a span of the current request (see
  /// `EnvironmentValues.startSpan(_:)`), turning its failure into the 503 the client gets.
  ///
  /// - Parameters:
  ///   - operationName: The span's name.
  ///   - caller: The request's user and logger.
  ///   - call: The call.
  /// - Returns: What the call returns.
  /// - Throws: ``APIError`` 503 naming the store, when the call fails.
  func traced<Value>(
    _ operationName: String, _ caller: NotesCaller,
    _ call: () async throws(NotesStoreError) -> Value
  ) async throws(APIError) -> Value {
    let span = EnvironmentNode.current.values.startSpan(operationName)
    defer { span.end() }
    do {
      return try await caller.unavailable(call)
    } catch {
      span.recordError(error)
      span.setStatus(SpanStatus(code: .error, message: error.message))
      throw error
    }
  }
}

/// Whom a call to ``NotesService`` is for: the request's user, and its logger, which carries
/// the request's id and user as metadata.
///
/// Made once per request: Milieu's handlers read it from the request's node with
/// `EnvironmentValues.notesCaller()`; the by-hand middleware makes it itself.
public struct NotesCaller: Sendable {
  /// The user the request acts for.
  public var user: AuthenticatedUser
  /// The request's logger.
  public var logger: Logger

  /// Creates a caller.
  ///
  /// - Parameters:
  ///   - user: The user the request acts for.
  ///   - logger: The request's logger.
  public init(user: AuthenticatedUser, logger: Logger) {
    self.user = user
    self.logger = logger
  }

  /// Runs a call to the store, turning its failure into the 503 the client gets, logged as an
  /// error that names the store.
  ///
  /// - Parameter call: The call.
  /// - Returns: What the call returns.
  /// - Throws: ``APIError`` 503 naming the store, when the call fails.
  package func unavailable<Value>(
    _ call: () async throws(NotesStoreError) -> Value
  ) async throws(APIError) -> Value {
    do {
      return try await call()
    } catch {
      logger.error("\(error)")
      throw error.apiError
    }
  }
}
