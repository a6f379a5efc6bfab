import Hummingbird

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The by-hand server's request context: Hummingbird's, plus the request's services, set by
/// ``HandWiringMiddleware``.
public struct HandWiredRequestContext: RequestContext {
  /// Hummingbird's part of the context.
  public var coreContext: CoreRequestContextStorage
  /// The request's services; `nil` until ``HandWiringMiddleware`` has run.
  public var services: HandWiredRequestServices?

  /// Creates the context Hummingbird makes for each request.
  ///
  /// - Parameter source: Where the request came from.
  public init(source: Source) {
    self.coreContext = CoreRequestContextStorage(source: source)
  }

  /// Writes JSON as ``NotesRequestContext`` does.
  public var responseEncoder: JSONEncoder { .notesServer }

  /// The request's services.
  ///
  /// - Returns: The services.
  /// - Throws: ``APIError`` 401 before ``HandWiringMiddleware`` has run.
  public func requireServices() throws(APIError) -> HandWiredRequestServices {
    guard let services else {
      throw .unauthorized("no authenticated user: HandWiringMiddleware has not run")
    }
    return services
  }
}
