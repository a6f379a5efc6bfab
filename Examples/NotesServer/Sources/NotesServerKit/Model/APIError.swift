import Hummingbird

/// An error a request gets back as JSON: `{"error": {"status": 404, "message": "…"}}`.
///
/// The message names what was wrong with the request, so that a client can fix it without
/// reading the server's logs.
///
/// ```swift
/// throw APIError.notFound("no note 7 for alice")
/// ```
public struct APIError: Error, Sendable, Hashable, HTTPResponseError {
  /// The response's status.
  public let status: HTTPResponse.Status
  /// What was wrong, for the client.
  public let message: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - status: The response's status.
  ///   - message: What was wrong, for the client.
  public init(status: HTTPResponse.Status, message: String) {
    self.status = status
    self.message = message
  }

  /// 400: the request is malformed.
  ///
  /// - Parameter message: What is malformed.
  /// - Returns: The error.
  public static func badRequest(_ message: String) -> Self {
    Self(status: .badRequest, message: message)
  }

  /// 401: the request does not say, or does not properly say, who is asking.
  ///
  /// - Parameter message: What is missing or wrong.
  /// - Returns: The error.
  public static func unauthorized(_ message: String) -> Self {
    Self(status: .unauthorized, message: message)
  }

  /// 403: the request is understood and refused.
  ///
  /// - Parameter message: Why.
  /// - Returns: The error.
  public static func forbidden(_ message: String) -> Self {
    Self(status: .forbidden, message: message)
  }

  /// 404: what the request names does not exist.
  ///
  /// - Parameter message: What was not found.
  /// - Returns: The error.
  public static func notFound(_ message: String) -> Self {
    Self(status: .notFound, message: message)
  }

  /// 408: the request did not arrive whole in the time the server gives it.
  ///
  /// - Parameter message: The deadline.
  /// - Returns: The error.
  public static func requestTimeout(_ message: String) -> Self {
    Self(status: .requestTimeout, message: message)
  }

  /// 413: the request's body is larger than the server accepts.
  ///
  /// - Parameter message: The limit.
  /// - Returns: The error.
  public static func contentTooLarge(_ message: String) -> Self {
    Self(status: .contentTooLarge, message: message)
  }

  /// 422: the body is well-formed JSON whose content breaks a rule.
  ///
  /// - Parameter message: The rule.
  /// - Returns: The error.
  public static func unprocessableContent(_ message: String) -> Self {
    Self(status: .unprocessableContent, message: message)
  }

  /// The JSON body that carries the error.
  public struct Body: Sendable, Hashable, Codable {
    /// The error's details.
    public struct Details: Sendable, Hashable, Codable {
      /// The status code, repeated for clients that log only bodies.
      public let status: Int
      /// What was wrong.
      public let message: String
    }

    /// The error's details.
    public let error: Details
  }

  /// The error as a JSON response.
  ///
  /// - Parameters:
  ///   - request: The request that failed.
  ///   - context: Its context, whose encoder writes the body.
  /// - Returns: The response.
  /// - Throws: What encoding throws.
  public func response(from request: Request, context: some RequestContext) throws -> Response {
    let body = Body(error: Body.Details(status: status.code, message: message))
    var response = try context.responseEncoder.encode(body, from: request, context: context)
    response.status = status
    return response
  }
}
