import HTTPTypes
import Hummingbird
import Logging
import Milieu
import Tracing

/// Gives each request a child of the app's node, current while the request is handled, and
/// makes the app's logger swift-log's current one (`Logger.current`) for as long.
///
/// The child holds what belongs to that request alone: its id, the user its header names, and
/// the `ServiceContext` its trace headers carry, which the app's tracer extracts. Handlers read
/// them from the node, together with
/// everything the app node shares (configuration, store, clock, actions, and the services
/// derived from them, which are built once per app, not per request), and cannot see another
/// request's.
///
/// Code that knows nothing of Milieu logs through `Logger.current`, as swift-log's
/// `withLogger` scopes make it (SLG-0006): in the request, that is the logger the request's
/// node reads, whose metadata provider (``Logging/Logger/MetadataProvider/notesRequest``)
/// puts the request's id and user on each line. Both are task-local, so a `Task` started in
/// the request carries them; a `Task.detached` carries neither until it re-enters them:
///
/// ```swift
/// let node = EnvironmentNode.current
/// Task.detached {
///   node.withCurrent { withLogger(node[\.logger]) { _ in audit() } }
/// }
/// ```
///
/// Nothing but the request holds the node, so it goes with the request. When the handler
/// returns its answer as bytes, as every route of this server does, the node is freed as the
/// middleware returns, just before Hummingbird writes them. A streaming body, which Hummingbird
/// runs after the middleware has returned and outside its `withCurrent`, sees the root as
/// `EnvironmentNode.current`; it should capture what it needs of the request (the service and
/// the caller) before the handler returns.
/// A request whose user header is missing or malformed gets a 401 and no node at all; the
/// header is checked before the route is, so a client without a user learns nothing of which
/// routes exist.
///
/// ```swift
/// let router = Router()
/// router.add(middleware: RequestEnvironmentMiddleware(app: app))
/// ```
public struct RequestEnvironmentMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The node each request's node is a child of.
  private let app: EnvironmentNode
  /// The app's tracer, read at each request, so that a tracer the app node is given later
  /// reaches the requests after it.
  private let tracer: Milieu.Environment<any Tracer>
  /// The app's logger, read at each request, as the tracer is.
  private let logger: Milieu.Environment<Logger>
  private let userHeader: HTTPField.Name
  private let userHeaderName: String

  /// Creates the middleware under an app node, which becomes every request's parent.
  ///
  /// It reads the user header's name from the app's configuration once, here.
  ///
  /// - Parameter app: The app node; the current node unless given.
  public init(app: EnvironmentNode = .current) {
    self.app = app
    (tracer, logger) = app.withCurrent {
      (Milieu.Environment(\.tracer), Milieu.Environment(\.logger))
    }
    userHeaderName = app[\.configuration].userHeaderName
    guard let userHeader = HTTPField.Name(userHeaderName) else {
      preconditionFailure("\"\(userHeaderName)\" is not a valid header name")
    }
    self.userHeader = userHeader
  }

  /// Handles a request in a node of its own.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - context: Its context; its `id` becomes the request's id.
  ///   - next: The rest of the chain, run with the request's node and the app's logger
  ///     current.
  /// - Returns: The response.
  /// - Throws: ``APIError`` 401 for a missing or malformed user header; what `next` throws.
  public func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let user = try AuthenticatedUser(
      headerValues: request.headers[values: userHeader], headerName: userHeaderName)
    let requestID = context.id
    var serviceContext = ServiceContext.topLevel
    tracer.wrappedValue.extract(
      request.headers, into: &serviceContext, using: HTTPFieldsExtractor())
    // A constant name: the id is among the node's values, which tree dumps show, and a name
    // made per request would cost a string for every request. The logger is the app's: its
    // metadata provider (`.notesRequest`) reads the id and the user from this node.
    let node = app.child("request") { values in
      values.requestID = requestID
      values.authenticatedUser = user
      values.serviceContext = serviceContext
    }
    let logger = logger.wrappedValue
    return try await node.withCurrent {
      try await withLogger(logger) { _ in try await next(request, context) }
    }
  }
}
