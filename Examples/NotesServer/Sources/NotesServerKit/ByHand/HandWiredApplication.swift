import Hummingbird

/// Builds the by-hand notes server: the same routes, errors and logic as ``NotesApplication``,
/// with services passed in the request context instead of read from a node.
///
/// ```swift
/// let store = SQLiteNotesStore(path: "notes.sqlite")
/// let services = HandWiredAppServices(configuration: configuration, logger: logger, store: store)
/// try await HandWiredApplication.make(services: services).runService()
/// ```
public enum HandWiredApplication {
  /// The router: JSON errors, the request's services in its context, then the notes routes.
  ///
  /// - Parameter services: What every request shares.
  /// - Returns: The router.
  public static func makeRouter(services: HandWiredAppServices) -> Router<HandWiredRequestContext> {
    let router = Router(context: HandWiredRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: JSONErrorMiddleware())
    router.add(middleware: HandWiringMiddleware(app: services))
    // Built once, as Milieu's server builds its derived `notesService` once per app node.
    let service = HandWiredNotesService(app: services)
    let maximumBodySize = services.configuration.maximumBodySize
    router.get("notes") { _, context in
      NoteList(notes: try await service.notes(for: try context.requireServices().caller))
    }
    router.post("notes") { request, context in
      let caller = try context.requireServices().caller
      let draft = try await request.decodeJSONBody(NoteDraft.self, maximumSize: maximumBodySize)
      return EditedResponse(
        status: .created, response: try await service.create(draft, for: caller))
    }
    router.delete("notes/:id") { _, context in
      let caller = try context.requireServices().caller
      try await service.delete(
        id: try NotesRoutes.noteID(context.parameters.get("id")), for: caller)
      return HTTPResponse.Status.noContent
    }
    router.post("notes/deletion-token") { _, context in
      let caller = try context.requireServices().caller
      return EditedResponse(status: .created, response: service.issueDeletionToken(for: caller))
    }
    router.delete("notes") { request, context in
      try await service.deleteAll(
        confirmedBy: request.uri.queryParameters.get("confirm"),
        for: try context.requireServices().caller)
    }
    router.get("me") { _, context in
      let services = try context.requireServices()
      return WhoAmIResponse(user: services.caller.user.name, requestID: services.requestID)
    }
    return router
  }

  /// The application, listening where the configuration says.
  ///
  /// - Parameter services: What every request shares.
  /// - Returns: The application, ready to run or to test.
  public static func make(services: HandWiredAppServices) -> some ApplicationProtocol {
    Application(
      router: makeRouter(services: services), server: services.configuration.httpServer,
      configuration: services.configuration.applicationConfiguration(logger: services.logger),
      logger: services.logger)
  }
}
