import Milieu
import Synchronization

/// Every user's notes, in memory, and the delete-all confirmation tokens issued to them.
///
/// One store serves the whole process: the app node holds it and every request reads it. Each
/// user sees only their own notes. All methods are safe to call from any thread; each takes the
/// store's lock once, so a request's change is seen whole or not at all.
///
/// ```swift
/// let store = NotesStore()
/// let note = store.add(NoteDraft(title: "Standup", text: "9:30"), owner: alice)
/// store.notes(of: alice)  // [note]
/// ```
public final class NotesStore: Sendable {
  private struct Owned: Sendable {
    var notes: [Note] = []
    var deletionToken: IssuedToken?
    /// The last token that deleted everything, until another is issued: to tell a client that
    /// sends it again that it was used, not that none was issued.
    var usedDeletionToken: String?
  }

  private struct IssuedToken: Sendable {
    let value: String
    let deadline: any InstantProtocol<Duration>
  }

  private struct State: Sendable {
    var owners: [AuthenticatedUser: Owned] = [:]
    var lastNoteID = 0
  }

  private let state = Mutex(State())

  /// Creates an empty store.
  public init() {}

  /// A user's notes, oldest first.
  ///
  /// - Parameter owner: Whose notes.
  /// - Returns: The notes.
  public func notes(of owner: AuthenticatedUser) -> [Note] {
    state.withLock { $0.owners[owner]?.notes ?? [] }
  }

  /// The number of notes of every user together.
  public var count: Int {
    state.withLock { state in state.owners.values.reduce(0) { $0 + $1.notes.count } }
  }

  /// Adds a note.
  ///
  /// - Parameters:
  ///   - draft: The note's title and text.
  ///   - owner: Whose note it is.
  /// - Returns: The note, with its new id.
  @discardableResult
  public func add(_ draft: NoteDraft, owner: AuthenticatedUser) -> Note {
    state.withLock { state in
      state.lastNoteID += 1
      let note = Note(id: state.lastNoteID, title: draft.title, text: draft.text, owner: owner.name)
      state.owners[owner, default: Owned()].notes.append(note)
      return note
    }
  }

  /// Removes one of a user's notes.
  ///
  /// - Parameters:
  ///   - id: The note's id.
  ///   - owner: Whose note it must be.
  /// - Returns: The removed note, or `nil` if the user has no note with that id.
  public func remove(id: Int, owner: AuthenticatedUser) -> Note? {
    state.withLock { state in
      guard let index = state.owners[owner]?.notes.firstIndex(where: { $0.id == id }) else {
        return nil
      }
      return state.owners[owner]?.notes.remove(at: index)
    }
  }

  /// Issues a token that confirms deleting all of a user's notes, replacing any earlier one.
  ///
  /// - Parameters:
  ///   - owner: Whose notes the token may delete.
  ///   - clock: The clock the deadline is measured on.
  ///   - lifetime: How long the token stays valid.
  /// - Returns: The token.
  public func issueDeletionToken(
    for owner: AuthenticatedUser, clock: any Clock<Duration>, lifetime: Duration
  ) -> String {
    let value = Self.randomToken()
    let token = IssuedToken(value: value, deadline: clock.deadline(after: lifetime))
    state.withLock { state in
      state.owners[owner, default: Owned()].deletionToken = token
      state.owners[owner]?.usedDeletionToken = nil
    }
    return value
  }

  /// Deletes all of a user's notes if the token is the one issued to that user and still valid.
  ///
  /// A valid token is used up. A wrong token changes nothing: the notes stay, and so does the
  /// token that was issued. A used token sent again is told so.
  ///
  /// - Parameters:
  ///   - owner: Whose notes.
  ///   - token: The confirmation token the request carries.
  ///   - clock: The clock the token's deadline was measured on.
  /// - Returns: The number of notes deleted.
  /// - Throws: ``APIError`` 403 when no token is pending, the token was used already, differs,
  ///   or expired.
  public func removeAll(
    of owner: AuthenticatedUser, confirmedBy token: String, clock: any Clock<Duration>
  ) throws(APIError) -> Int {
    try state.withLock { state throws(APIError) in
      guard let issued = state.owners[owner]?.deletionToken else {
        if let used = state.owners[owner]?.usedDeletionToken, used == token {
          throw .forbidden(
            "this confirmation token was already used: POST /notes/deletion-token for a new one")
        }
        throw .forbidden(
          "no confirmation token is pending for \(owner): POST /notes/deletion-token first")
      }
      guard issued.value == token else {
        throw .forbidden("wrong confirmation token for \(owner)")
      }
      guard !clock.hasReached(issued.deadline) else {
        throw .forbidden("confirmation token expired: POST /notes/deletion-token for a new one")
      }
      let count = state.owners[owner]?.notes.count ?? 0
      state.owners[owner] = Owned(usedDeletionToken: issued.value)
      return count
    }
  }

  private static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }.joined()
  }
}

extension EnvironmentValues {
  static let notesStore = Entry(NotesStore())

  /// Where the notes live.
  ///
  /// The app node sets the server's store. The default is one empty store per process, shared
  /// by every node that sets none: give each app, and each test, its own.
  ///
  /// ```swift
  /// @Environment(\.notesStore) var store
  /// ```
  public var notesStore: NotesStore {
    get { self[Self.notesStore] }
    set { self[Self.notesStore] = newValue }
  }
}
