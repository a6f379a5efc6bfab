import Dependencies
import Hummingbird
import Logging
import NotesServerKit

/// Builds the notes server with swift-dependencies: the same routes, errors and logic as
/// `NotesApplication`, with each request's values set by `withDependencies` and read with
/// `@Dependency`.
///
/// What every request shares is read from the dependencies current when the builder runs and
/// while the server runs: the app sets them around both.
///
/// ```swift
/// try await withDependencies {
///   $0.notesConfiguration = configuration
///   $0.logger = logger
///   $0.notesService = NotesService(
///     store: store, clock: ContinuousClock(), notify: .loggingWithDependencies,
///     deletionTokenLifetime: configuration.deletionTokenLifetime)
/// } operation: {
///   try await DependenciesApplication.make().runService()
/// }
/// ```
public enum DependenciesApplication {
  /// The router: JSON errors, a `withDependencies` scope per request, then the notes routes.
  ///
  /// - Returns: The router.
  public static func makeRouter() -> Router<NotesRequestContext> {
    @Dependency(\.notesConfiguration) var configuration
    let router = Router(context: NotesRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: JSONErrorMiddleware())
    router.add(middleware: RequestDependenciesMiddleware())
    let maximumBodySize = configuration.maximumBodySize
    router.get("notes") { _, _ in
      let (service, caller) = try serviceAndCaller()
      return NoteList(notes: try await service.notes(for: caller))
    }
    router.post("notes") { request, _ in
      let (service, caller) = try serviceAndCaller()
      let draft = try await request.decodeJSONBody(NoteDraft.self, maximumSize: maximumBodySize)
      return EditedResponse(
        status: .created, response: try await service.create(draft, for: caller))
    }
    router.delete("notes/:id") { _, context in
      let (service, caller) = try serviceAndCaller()
      try await service.delete(
        id: try NotesRoutes.noteID(context.parameters.get("id")), for: caller)
      return HTTPResponse.Status.noContent
    }
    router.post("notes/deletion-token") { _, _ in
      let (service, caller) = try serviceAndCaller()
      return EditedResponse(status: .created, response: service.issueDeletionToken(for: caller))
    }
    router.delete("notes") { request, _ in
      let (service, caller) = try serviceAndCaller()
      return try await service.deleteAll(
        confirmedBy: request.uri.queryParameters.get("confirm"), for: caller)
    }
    router.get("me") { _, _ in
      @Dependency(\.authenticatedUser) var user
      @Dependency(\.requestID) var requestID
      guard let user, let requestID else {
        throw APIError.unauthorized("no authenticated user: the route ran outside a request")
      }
      return WhoAmIResponse(user: user.name, requestID: requestID)
    }
    return router
  }

  /// The application, listening where the current configuration says, and closing connections
  /// that stay idle longer than it allows.
  ///
  /// - Parameter router: The router; ``makeRouter()``'s unless given.
  /// - Returns: The application, ready to run or to test.
  public static func make(
    router: Router<NotesRequestContext> = makeRouter()
  ) -> some ApplicationProtocol {
    @Dependency(\.notesConfiguration) var configuration
    @Dependency(\.logger) var logger
    return Application(
      router: router, server: configuration.httpServer,
      configuration: configuration.applicationConfiguration(logger: logger), logger: logger)
  }

  /// The shared service and the request's caller (its user and logger), as the request's
  /// dependencies hold them.
  ///
  /// - Returns: The service and the caller.
  /// - Throws: `APIError` 401 outside a request, where no user is set.
  static func serviceAndCaller() throws(APIError) -> (NotesService, NotesCaller) {
    @Dependency(\.notesService) var service
    @Dependency(\.authenticatedUser) var user
    @Dependency(\.logger) var logger
    guard let user else {
      throw .unauthorized("no authenticated user: the service was called outside a request")
    }
    return (service, NotesCaller(user: user, logger: logger))
  }
}
