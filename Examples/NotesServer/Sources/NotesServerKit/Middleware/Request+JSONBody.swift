import Hummingbird

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension Request {
  /// Reads the body, at most `maximumSize` bytes of it, and decodes it as JSON.
  ///
  /// ```swift
  /// let draft = try await request.decodeJSONBody(NoteDraft.self, maximumSize: 16_384)
  /// ```
  ///
  /// - Parameters:
  ///   - type: What the body holds.
  ///   - maximumSize: The largest body accepted, in bytes.
  /// - Returns: The decoded value.
  /// - Throws: ``APIError`` 413 for a body larger than `maximumSize`, 408 for one that did not
  ///   arrive in time, 400 for a body that is not JSON or not the JSON `type` expects, naming the
  ///   field and the problem.
  public func decodeJSONBody<Value: Decodable>(
    _ type: Value.Type, maximumSize: Int
  ) async throws(APIError) -> Value {
    let buffer: ByteBuffer
    do {
      buffer = try await body.collect(upTo: maximumSize)
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
      throw .contentTooLarge("the request body is larger than \(maximumSize) bytes")
    } catch let error as APIError {
      throw error  // such as a body that did not arrive in time: `SlowClientHandler`
    } catch {
      throw .badRequest("the request body could not be read: \(error)")
    }
    guard buffer.readableBytes > 0 else {
      throw .badRequest("the request has no body: send a JSON object")
    }
    do {
      return try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
      throw .badRequest("malformed JSON body: \(Self.describe(error))")
    } catch {
      throw .badRequest("malformed JSON body: \(error)")
    }
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return path.isEmpty ? "the top level" : "'\(path)'"
    }
    switch error {
    case .keyNotFound(let key, _):
      return "missing field '\(key.stringValue)'"
    case .typeMismatch(let type, let context):
      return "\(path(context)) should be \(Self.jsonName(of: type))"
    case .valueNotFound(let type, let context):
      return "\(path(context)) should be \(Self.jsonName(of: type)), not null"
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty
        ? "not valid JSON" : "\(path(context)) is invalid: \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }

  private static func jsonName(of type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Int.Type, is Double.Type: "a number"
    case is Bool.Type: "true or false"
    default: "an object"
    }
  }
}
