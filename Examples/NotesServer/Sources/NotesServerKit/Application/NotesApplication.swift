import Hummingbird
import Logging
import Milieu

/// Builds the notes server: Milieu's variant, where each request gets a node of its own.
///
/// Everything the process shares is read from the node that is current when the builder runs,
/// the app node; each request's node is made a child of it.
///
/// ```swift
/// let app = EnvironmentNode("notes-server")
/// app.update { values in
///   values.configuration = configuration
///   values.notesStore = SQLiteNotesStore(path: "notes.sqlite")
/// }
/// try await app.withCurrent { NotesApplication.make() }.runService()
/// ```
public enum NotesApplication {
  /// The router: JSON errors, a node per request, then the notes routes.
  ///
  /// Add routes of your own to it before you make the application; they run in the request's
  /// node too.
  ///
  /// - Returns: The router, bound to the current node.
  public static func makeRouter() -> Router<NotesRequestContext> {
    // HEAD answers as GET does, without the body.
    let router = Router(context: NotesRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: JSONErrorMiddleware())
    router.add(middleware: RequestEnvironmentMiddleware())
    NotesRoutes.addRoutes(to: router)
    return router
  }

  /// The application, listening where the current node's configuration says, and closing
  /// connections that stay idle longer than it allows.
  ///
  /// - Parameter router: The router; ``makeRouter()``'s unless given.
  /// - Returns: The application, ready to run or to test.
  public static func make(
    router: Router<NotesRequestContext> = makeRouter()
  ) -> some ApplicationProtocol {
    @Milieu.Environment(\.configuration) var configuration
    @Milieu.Environment(\.logger) var logger
    return Application(
      router: router, server: configuration.httpServer,
      configuration: configuration.applicationConfiguration(logger: logger), logger: logger)
  }
}
