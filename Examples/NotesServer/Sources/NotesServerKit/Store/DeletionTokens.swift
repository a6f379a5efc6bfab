import Synchronization

/// The delete-all confirmation tokens issued to each user of one store, with the clock time
/// each expires at.
///
/// Deleting all of a user's notes takes two requests: one that issues a token, and one that
/// sends it back. ``redeem(_:of:clock:)`` checks the token and takes it; if deleting then fails,
/// ``restore(_:)`` puts it back, so that a failed delete changes nothing.
///
/// ```swift
/// let token = tokens.issue(for: alice, clock: clock, lifetime: .seconds(60))
/// let redeemed = try tokens.redeem(token, of: alice, clock: clock)
/// ```
public final class DeletionTokens: Sendable {
  fileprivate struct IssuedToken: Sendable {
    let value: String
    let deadline: any InstantProtocol<Duration>
  }

  private struct Owned: Sendable {
    var pending: IssuedToken?
    /// The last token that deleted everything, until another is issued: to tell a client that
    /// sends it again that it was used, not that none was issued.
    var used: String?
  }

  /// A token taken by ``DeletionTokens/redeem(_:of:clock:)``, to give back if the delete fails.
  public struct Redeemed: Sendable {
    fileprivate let owner: AuthenticatedUser
    fileprivate let token: IssuedToken
  }

  private let owners = Mutex<[AuthenticatedUser: Owned]>([:])

  /// Creates an empty set of tokens.
  public init() {}

  /// Issues a token that confirms deleting all of a user's notes, replacing any earlier one.
  ///
  /// - Parameters:
  ///   - owner: Whose notes the token may delete.
  ///   - clock: The clock the deadline is measured on.
  ///   - lifetime: How long the token stays valid.
  /// - Returns: The token: 32 hexadecimal digits.
  public func issue(
    for owner: AuthenticatedUser, clock: any Clock<Duration>, lifetime: Duration
  ) -> String {
    let token = IssuedToken(value: Self.randomToken(), deadline: clock.deadline(after: lifetime))
    owners.withLock { $0[owner] = Owned(pending: token) }
    return token.value
  }

  /// Takes the token pending for a user, if it is the one given and still valid.
  ///
  /// A wrong token changes nothing: the pending one stays valid.
  ///
  /// - Parameters:
  ///   - token: The token the request carries.
  ///   - owner: Whose notes.
  ///   - clock: The clock the deadline was measured on.
  /// - Returns: The token taken, for ``restore(_:)``.
  /// - Throws: ``APIError`` 403 when no token is pending, the token was used already, differs,
  ///   or expired.
  public func redeem(
    _ token: String, of owner: AuthenticatedUser, clock: any Clock<Duration>
  ) throws(APIError) -> Redeemed {
    try owners.withLock { owners throws(APIError) in
      guard let issued = owners[owner]?.pending else {
        if let used = owners[owner]?.used, used == token {
          throw .forbidden(
            "this confirmation token was already used: POST /notes/deletion-token for a new one")
        }
        throw .forbidden(
          "no confirmation token is pending for \(owner): POST /notes/deletion-token first")
      }
      guard issued.value == token else {
        throw .forbidden("wrong confirmation token for \(owner)")
      }
      guard !clock.hasReached(issued.deadline) else {
        throw .forbidden("confirmation token expired: POST /notes/deletion-token for a new one")
      }
      owners[owner] = Owned(used: issued.value)
      return Redeemed(owner: owner, token: issued)
    }
  }

  /// Gives back a token whose delete failed, unless another was issued since.
  ///
  /// - Parameter redeemed: What ``redeem(_:of:clock:)`` took.
  public func restore(_ redeemed: Redeemed) {
    owners.withLock { owners in
      guard owners[redeemed.owner]?.pending == nil else { return }
      owners[redeemed.owner] = Owned(pending: redeemed.token)
    }
  }

  private static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }.joined()
  }
}
