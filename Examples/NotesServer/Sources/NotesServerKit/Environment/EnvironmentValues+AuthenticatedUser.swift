import Milieu

/// The user a request acts for, as named by its user header.
///
/// This example trusts the header, as a service behind an authenticating proxy would; what it
/// checks is the header's shape: one header, 1 to 64 ASCII letters, digits, `.`, `_` or `-`.
///
/// Names stay ASCII: header values are ASCII by convention (RFC 9110 asks new fields to keep to
/// it), and a name that may hold any letter can look exactly like another (a Cyrillic `а` in
/// `аlice`) in a log or a list of notes. A name can hold nothing that acts on a terminal, so it
/// is safe to log as it is.
///
/// ```swift
/// let user = try AuthenticatedUser(headerValue: "alice")
/// ```
public struct AuthenticatedUser: Sendable, Hashable, CustomStringConvertible {
  /// The user's name, as the header gave it.
  public let name: String

  /// The longest name accepted.
  public static let maximumNameLength = 64

  /// Reads a user from the values of the user header a request carries.
  ///
  /// ```swift
  /// let user = try AuthenticatedUser(headerValues: request.headers[values: userHeader])
  /// ```
  ///
  /// - Parameters:
  ///   - headerValues: The value of each user header, in order; none when the request has none.
  ///   - headerName: The header's name, for the error's message.
  /// - Throws: ``APIError`` 401 naming what is wrong with the header.
  public init(headerValues: [String], headerName: String = "X-User") throws(APIError) {
    guard headerValues.count < 2 else {
      throw .unauthorized(
        "malformed \(headerName) header: the request has \(headerValues.count) of them; send"
          + " exactly one")
    }
    try self.init(headerValue: headerValues.first, headerName: headerName)
  }

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
    if let refused = headerValue.unicodeScalars.first(where: { !Self.isAllowed($0) }) {
      throw .unauthorized(
        "malformed \(headerName) header: a user name has only ASCII letters, digits, '.', '_'"
          + " and '-', not \(ClientText.codePoint(refused))")
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
