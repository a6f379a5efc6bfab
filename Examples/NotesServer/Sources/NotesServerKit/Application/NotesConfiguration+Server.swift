import Hummingbird
import HummingbirdCore
import Logging

extension NotesConfiguration {
  /// Where the server listens, the name it answers with, and how many connections it holds at
  /// once: what every variant's application is made with.
  ///
  /// - Parameter logger: Where reaching ``maximumConnections`` is logged, once.
  /// - Returns: The application's configuration.
  package func applicationConfiguration(logger: Logger) -> ApplicationConfiguration {
    ApplicationConfiguration(
      address: .hostname(host, port: port), serverName: "NotesServer",
      availableConnectionsDelegate: ConnectionLimit(maximumConnections, logger: logger))
  }

  /// HTTP/1, closing a connection that stays idle for ``idleTimeout``.
  package var httpServer: HTTPServerBuilder {
    let (seconds, attoseconds) = idleTimeout.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    return .http1(configuration: HTTP1Channel.Configuration(idleTimeout: .nanoseconds(nanoseconds)))
  }
}
