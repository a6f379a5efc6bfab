import Dependencies
import HTTPTypes
import Hummingbird
import Logging
import NotesServerKit

/// The swift-dependencies counterpart of `RequestEnvironmentMiddleware`: reads the user header,
/// makes the request's logger, and runs the rest of the chain in a `withDependencies` scope that
/// holds the request's id, user and logger.
///
/// ```swift
/// router.add(middleware: RequestDependenciesMiddleware())
/// ```
public struct RequestDependenciesMiddleware<Context: RequestContext>: RouterMiddleware {
  @Dependency(\.logger) private var logger
  private let userHeader: HTTPField.Name
  private let userHeaderName: String

  /// Creates the middleware, reading the user header's name from the current configuration.
  public init() {
    @Dependency(\.notesConfiguration) var configuration
    userHeaderName = configuration.userHeaderName
    guard let userHeader = HTTPField.Name(userHeaderName) else {
      preconditionFailure("\"\(userHeaderName)\" is not a valid header name")
    }
    self.userHeader = userHeader
  }

  /// Handles a request in a `withDependencies` scope of its own.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Its context; its `id` becomes the request's id.
  ///   - next: The rest of the chain, run in the request's scope.
  /// - Returns: The response.
  /// - Throws: `APIError` 401 for a missing or malformed user header; what `next` throws.
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let user = try AuthenticatedUser(
      headerValues: request.headers[values: userHeader], headerName: userHeaderName)
    let requestID = context.id
    var logger = self.logger
    logger[metadataKey: "request.id"] = .string(requestID)
    logger[metadataKey: "user"] = .string(user.name)
    return try await withDependencies {
      $0.requestID = requestID
      $0.authenticatedUser = user
      $0.logger = logger
    } operation: {
      try await next(request, context)
    }
  }
}
