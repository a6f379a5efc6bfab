import Dependencies
import Logging
import NotesServerKit

extension DependencyValues {
  /// The server's configuration; the app sets it from the command line.
  public var notesConfiguration: NotesConfiguration {
    get { self[NotesConfigurationKey.self] }
    set { self[NotesConfigurationKey.self] = newValue }
  }

  /// The logger to write to: the app's, which each request's scope replaces with a copy that
  /// carries the request's id and user as metadata.
  public var logger: Logger {
    get { self[LoggerKey.self] }
    set { self[LoggerKey.self] = newValue }
  }

  /// The notes service every request shares: the app sets one, built from its store, clock,
  /// `notify` action and configuration, as the by-hand server builds its own.
  ///
  /// ```swift
  /// @Dependency(\.notesService) var service
  /// ```
  public var notesService: NotesService {
    get { self[NotesServiceKey.self] }
    set { self[NotesServiceKey.self] = newValue }
  }

  /// The id of the request being handled, or `nil` outside any request.
  public var requestID: String? {
    get { self[RequestIDKey.self] }
    set { self[RequestIDKey.self] = newValue }
  }

  /// The user the current request acts for, or `nil` outside any request.
  public var authenticatedUser: AuthenticatedUser? {
    get { self[AuthenticatedUserKey.self] }
    set { self[AuthenticatedUserKey.self] = newValue }
  }
}

private enum NotesConfigurationKey: DependencyKey {
  static let liveValue = NotesConfiguration()
}

private enum LoggerKey: DependencyKey {
  static let liveValue = Logger(label: "NotesServer")
}

private enum NotesServiceKey: DependencyKey {
  static let liveValue = NotesService(
    store: SQLiteNotesStore(path: "notes.sqlite"), clock: ContinuousClock(),
    notify: .loggingWithDependencies,
    deletionTokenLifetime: NotesConfiguration().deletionTokenLifetime)
}

// Outside a request there is no request id and no user, in a test as anywhere.
private enum RequestIDKey: DependencyKey {
  static let liveValue: String? = nil
  static let testValue: String? = nil
}

private enum AuthenticatedUserKey: DependencyKey {
  static let liveValue: AuthenticatedUser? = nil
  static let testValue: AuthenticatedUser? = nil
}

extension NotifyAction {
  /// Logs each notification at `info` level with the current request's logger, as
  /// `@Dependency(\.logger)` reads it: swift-dependencies' counterpart of Milieu's
  /// ``NotesServerKit/NotifyAction/logging``.
  public static let loggingWithDependencies = NotifyAction { notification in
    @Dependency(\.logger) var logger
    logger.info("notify: \(notification)")
  }
}
