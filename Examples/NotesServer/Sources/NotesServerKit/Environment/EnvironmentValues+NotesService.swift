import Milieu

extension EnvironmentValues {
  static let notesService = Derived { values in
    NotesService(
      store: values.notesStore, clock: values.clock, notify: values.notify,
      deletionTokenLifetime: values.configuration.deletionTokenLifetime)
  }

  /// The notes service, built from the store, clock, `notify` action and configuration the
  /// node sees.
  ///
  /// It is built at its first read and shared by every node that sees the same four values:
  /// all the requests of an app read the app's one service. A node that overrides one of them,
  /// such as a test's environment, gets a service of its own, built on the override. It reads
  /// nothing a request sets, so a request never builds one; what a call needs of its request
  /// it is passed, as a ``NotesCaller``.
  ///
  /// ```swift
  /// let request = EnvironmentNode.current.values
  /// let notes = request.notesService.notes(for: try request.notesCaller())
  /// ```
  public var notesService: NotesService { self[Self.notesService] }

  /// The user and logger of the request these values belong to, to pass to ``notesService``.
  ///
  /// - Returns: The caller.
  /// - Throws: ``APIError`` 401 outside a request, where no user is set.
  public func notesCaller() throws(APIError) -> NotesCaller {
    guard let user = authenticatedUser else {
      throw .unauthorized("no authenticated user: the service was called outside a request")
    }
    return NotesCaller(user: user, logger: logger)
  }
}
