import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

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

  /// HTTP/1, closing a connection that stays idle for ``idleTimeout``, whose request takes
  /// longer than ``requestTimeout`` to arrive, or whose client leaves its responses unread for
  /// ``writeTimeout``.
  package var httpServer: HTTPServerBuilder {
    .http1(
      configuration: HTTP1Channel.Configuration(
        additionalChannelHandlers: [
          SlowClientHandler(requestTimeout: requestTimeout, writeTimeout: writeTimeout)
        ],
        idleTimeout: TimeAmount(idleTimeout)))
  }
}
