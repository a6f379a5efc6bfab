import Milieu

/// The user a request acts for, as named by its user header.
///
/// This example trusts the header, as a service behind an authenticating proxy would; what it
/// checks is the header's shape: 1 to 64 letters, digits, `.`, `_` or `-`.
///
/// ```swift
/// let user = try AuthenticatedUser(headerValue: "alice")
/// ```
public struct AuthenticatedUser: Sendable, Hashable, CustomStringConvertible {
  /// The user's name, as the header gave it.
  public let name: String

  /// The longest name accepted.
  public static let maximumNameLength = 64

  /// Reads a user from the value of the user header.
  ///
  /// - Parameters:
  ///   - headerValue: The header's value, or `nil` when the request has none.
  ///   - headerName: The header's name, for the error's message.
  /// - Throws: ``APIError`` 401 naming what is wrong with the header.
  public init(headerValue: String?, headerName: String = "X-User") throws(APIError) {
    guard let headerValue else {
      throw .unauthorized("missing \(headerName) header: name the user the request acts for")
    }
    guard !headerValue.isEmpty, headerValue.utf8.count <= Self.maximumNameLength else {
      throw .unauthorized(
        "malformed \(headerName) header: a user name has 1 to \(Self.maximumNameLength) characters"
      )
    }
    guard headerValue.unicodeScalars.allSatisfy(Self.isAllowed) else {
      throw .unauthorized(
        "malformed \(headerName) header: a user name has only letters, digits, '.', '_' and '-'")
    }
    self.name = headerValue
  }

  /// The user's name.
  public var description: String { name }

  private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
    default: false
    }
  }
}

extension EnvironmentValues {
  static let authenticatedUser = Entry<AuthenticatedUser?>(nil)

  /// The user the current request acts for, or `nil` outside any request.
  ///
  /// ``RequestEnvironmentMiddleware`` sets it on each request's node; a request without a valid
  /// user header never gets a node.
  ///
  /// ```swift
  /// @Environment(\.authenticatedUser) var user
  /// ```
  public var authenticatedUser: AuthenticatedUser? {
    get { self[Self.authenticatedUser] }
    set { self[Self.authenticatedUser] = newValue }
  }
}
