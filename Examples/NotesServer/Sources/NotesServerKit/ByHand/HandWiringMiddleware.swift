import HTTPTypes
import Hummingbird
import Logging

/// The by-hand counterpart of ``RequestEnvironmentMiddleware``: reads the user header, makes
/// the request's logger, and stores the request's id and caller in its context.
public struct HandWiringMiddleware: RouterMiddleware {
  private let app: HandWiredAppServices
  private let userHeader: HTTPField.Name

  /// Creates the middleware.
  ///
  /// - Parameter app: What every request shares.
  public init(app: HandWiredAppServices) {
    self.app = app
    guard let userHeader = HTTPField.Name(app.configuration.userHeaderName) else {
      preconditionFailure("\"\(app.configuration.userHeaderName)\" is not a valid header name")
    }
    self.userHeader = userHeader
  }

  /// Handles a request with its services in its context.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Its context; its `id` becomes the request's id.
  ///   - next: The rest of the chain.
  /// - Returns: The response.
  /// - Throws: ``APIError`` 401 for a missing or malformed user header; what `next` throws.
  public func handle(
    _ request: Request, context: HandWiredRequestContext,
    next: (Request, HandWiredRequestContext) async throws -> Response
  ) async throws -> Response {
    let user = try AuthenticatedUser(
      headerValues: request.headers[values: userHeader],
      headerName: app.configuration.userHeaderName)
    let requestID = context.id
    var logger = app.logger
    logger[metadataKey: "request.id"] = .string(requestID)
    logger[metadataKey: "user"] = .string(user.name)
    var context = context
    context.services = HandWiredRequestServices(
      caller: NotesCaller(user: user, logger: logger), requestID: requestID)
    return try await next(request, context)
  }
}
