import Logging
import Milieu

extension Logger.MetadataProvider {
  /// Puts the current request's id and user on every log line, read from the node that is
  /// current when the line is logged.
  ///
  /// Install it once, on the app's logger; every line logged while a request's node is current
  /// (in a handler, in a service however deep, in a `Task` started there, or in a
  /// `Task.detached` that re-enters the node with `node.withCurrent`) then carries
  /// `request.id` and `user`, with no logger passed down. ``RequestEnvironmentMiddleware``
  /// makes that logger `Logger.current` in the request, so lines that code knowing nothing of
  /// Milieu logs through `Logger.current` carry them too. Outside any request it adds nothing.
  /// It runs only for lines the logger's level lets through.
  ///
  /// ```swift
  /// var logger = Logger(label: "NotesServer", metadataProvider: .notesRequest)
  /// app.set(\.logger, to: logger)
  /// logger.info("created note 1")  // request.id=… user=alice created note 1
  /// ```
  public static let notesRequest = Logger.MetadataProvider {
    let values = EnvironmentNode.current.values
    var metadata: Logger.Metadata = [:]
    if let requestID = values.requestID { metadata["request.id"] = .string(requestID) }
    if let user = values.authenticatedUser { metadata["user"] = .string(user.name) }
    return metadata
  }
}
