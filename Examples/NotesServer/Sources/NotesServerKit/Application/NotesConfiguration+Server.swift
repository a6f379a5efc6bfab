import Hummingbird
import HummingbirdCore

extension NotesConfiguration {
  /// Where the server listens, and the name it answers with: what every variant's application
  /// is made with.
  package var applicationConfiguration: ApplicationConfiguration {
    ApplicationConfiguration(address: .hostname(host, port: port), serverName: "NotesServer")
  }

  /// HTTP/1, closing a connection that stays idle for ``idleTimeout``.
  package var httpServer: HTTPServerBuilder {
    let (seconds, attoseconds) = idleTimeout.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    return .http1(configuration: HTTP1Channel.Configuration(idleTimeout: .nanoseconds(nanoseconds)))
  }
}
