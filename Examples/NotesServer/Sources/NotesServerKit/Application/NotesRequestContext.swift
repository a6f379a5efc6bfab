import Hummingbird

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The request context of Milieu's server: Hummingbird's basic one, with JSON written in a
/// stable key order and with unescaped slashes, so that clients and tests can compare bodies.
///
/// It carries nothing of the request's own: that lives in the request's node.
public struct NotesRequestContext: RequestContext {
  /// Hummingbird's part of the context.
  public var coreContext: CoreRequestContextStorage

  /// Creates the context Hummingbird makes for each request.
  ///
  /// - Parameter source: Where the request came from.
  public init(source: Source) {
    self.coreContext = CoreRequestContextStorage(source: source)
  }

  /// Writes JSON with sorted keys and unescaped slashes.
  public var responseEncoder: JSONEncoder { .notesServer }
}

extension JSONEncoder {
  /// A new encoder that writes JSON with sorted keys and unescaped slashes, as every variant of
  /// the server answers.
  static var notesServer: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
