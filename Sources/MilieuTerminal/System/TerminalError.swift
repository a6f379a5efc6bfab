#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A system call on the terminal or on standard input or output failed.
///
/// The terminal is restored before this error reaches you.
///
/// ```swift
/// do {
///   let choice = try Terminal().present(alert)
/// } catch {
///   print("Could not ask: \(error)")  // "read failed: input/output error (errno 5)"
/// }
/// ```
public struct TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The system call that failed, such as `tcgetattr`, `read` or `write`.
  public var operation: String

  /// The `errno` value it left.
  public var code: Int32

  /// Creates an error for a failed system call.
  ///
  /// - Parameters:
  ///   - operation: The system call that failed.
  ///   - code: The `errno` value it left.
  public init(operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }

  /// The failed call, a short explanation of the cause (the system's own for uncommon ones),
  /// and the `errno` value.
  public var description: String {
    let reason =
      switch code {
      case ENOTTY: "not a terminal "
      case EBADF: "bad file descriptor "
      case EIO: "input/output error "
      case EPIPE: "the other end was closed "
      default: Self.systemReason(for: code).map { $0 + " " } ?? ""
      }
    return "\(operation) failed: \(reason)(errno \(code))"
  }

  /// The system's own words for `code`, starting in lower case: `is a directory`.
  static func systemReason(for code: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    // The XSI strerror_r, as Swift imports it: thread-safe, unlike strerror.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return nil }
    let text = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard !text.isEmpty, !text.hasPrefix("Unknown error") else { return nil }
    return text.prefix(1).lowercased() + text.dropFirst()
  }

  /// An error for `operation` carrying the current `errno`.
  static func fromErrno(_ operation: String) -> TerminalError {
    TerminalError(operation: operation, code: errno)
  }
}
