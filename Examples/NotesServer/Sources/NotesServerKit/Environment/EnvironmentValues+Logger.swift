import Logging
import Milieu

extension EnvironmentValues {
  static let logger = Entry(Logger(label: "NotesServer"))

  /// The logger to write to.
  ///
  /// The app node sets the process's logger; each request's node overrides it with a copy that
  /// carries the request's id and user as metadata, so everything a handler or a service logs
  /// says which request it belongs to without being told.
  ///
  /// ```swift
  /// @Environment(\.logger) var logger
  /// logger.debug("listed notes")  // request.id=… user=alice listed notes
  /// ```
  public var logger: Logger {
    get { self[Self.logger] }
    set { self[Self.logger] = newValue }
  }
}
