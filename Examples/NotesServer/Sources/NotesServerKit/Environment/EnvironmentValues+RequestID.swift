import Milieu

extension EnvironmentValues {
  static let requestID = Entry<String?>(nil)

  /// The id of the request being handled, or `nil` outside any request.
  ///
  /// ``RequestEnvironmentMiddleware`` sets it on each request's node, from Hummingbird's own
  /// request id, the one its logs print as `hb.request.id`.
  public var requestID: String? {
    get { self[Self.requestID] }
    set { self[Self.requestID] = newValue }
  }
}
