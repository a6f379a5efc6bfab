import HummingbirdCore
import Logging

/// Hummingbird's limit on open connections, which logs the first time it is reached.
///
/// At the limit, Hummingbird stops accepting: new connections wait in the listen backlog until
/// an open one closes, and are then accepted in the order they came. Being at the limit is
/// normal under a burst, so it is logged once, not once per connection.
///
/// ```swift
/// ApplicationConfiguration(availableConnectionsDelegate: ConnectionLimit(100, logger: logger))
/// ```
struct ConnectionLimit: AvailableConnectionsDelegate {
  private var limit: MaximumAvailableConnections
  private let maximum: Int
  private let logger: Logger
  private var hasLogged = false

  /// Creates the limit.
  ///
  /// - Parameters:
  ///   - maximum: The most connections open at once.
  ///   - logger: Where reaching it is logged.
  init(_ maximum: Int, logger: Logger) {
    self.limit = MaximumAvailableConnections(maximum)
    self.maximum = maximum
    self.logger = logger
  }

  mutating func connectionOpened() {
    limit.connectionOpened()
    if !hasLogged, !limit.isAcceptingNewConnections() {
      hasLogged = true
      let message =
        "\(maximum) connections are open, the most allowed (--max-connections): new connections"
        + " wait in the listen backlog until one closes; logged only this once"
      logger.warning("\(message)")
    }
  }

  mutating func connectionClosed() {
    limit.connectionClosed()
  }

  func isAcceptingNewConnections() -> Bool {
    limit.isAcceptingNewConnections()
  }
}
