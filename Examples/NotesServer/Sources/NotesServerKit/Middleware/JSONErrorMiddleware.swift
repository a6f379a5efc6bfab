import Hummingbird

/// Turns every error a request ends in into a JSON body that names what was wrong.
///
/// ``APIError``s pass through as they are. Hummingbird's own errors (no route, a method the
/// route does not take, a body too large) keep their status and get a message; anything else is
/// a 500 whose message points at the server's log, where the error itself is written. A HEAD
/// request gets the same status and headers, without the body.
///
/// ```swift
/// router.add(middleware: JSONErrorMiddleware())  // first, so that it sees every error
/// ```
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Creates the middleware.
  public init() {}

  /// Runs the rest of the chain and answers its error, if any, as JSON.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Its context.
  ///   - next: The rest of the chain.
  /// - Returns: The response, or the error as a JSON response.
  /// - Throws: Only if the error's JSON cannot be encoded.
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch {
      let apiError = Self.apiError(for: error, request: request, context: context)
      var response = try apiError.response(from: request, context: context)
      if let error = error as? HTTPError {
        // Such as the `Allow` header of a 405.
        response.headers.append(contentsOf: error.headers)
      }
      // A HEAD request gets the head GET would have, without the body.
      return request.method == .head ? response.createHeadResponse() : response
    }
  }

  /// The ``APIError`` that answers an error.
  static func apiError(for error: any Error, request: Request, context: Context) -> APIError {
    switch error {
    case let error as APIError:
      return error
    case let error as HTTPError:
      return APIError(
        status: error.status, message: error.body ?? message(for: error.status, request: request))
    case let error as any HTTPResponseError:
      return APIError(status: error.status, message: message(for: error.status, request: request))
    default:
      // An error may quote what the client sent.
      context.logger.error(
        "request failed: \(ClientText.forLog(String(reflecting: error), quoted: false))")
      return APIError(
        status: .internalServerError,
        message: "internal error; the server's log has it under request id \(context.id)")
    }
  }

  private static func message(for status: HTTPResponse.Status, request: Request) -> String {
    switch status {
    case .notFound: "no route for \(request.method) \(request.uri.path)"
    case .methodNotAllowed: "\(request.method) is not allowed on \(request.uri.path)"
    case .contentTooLarge: "the request body is too large"
    default: status.reasonPhrase
    }
  }
}
