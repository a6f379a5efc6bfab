import Milieu

/// What the server is told when it starts: where it listens and the limits it enforces.
///
/// The app node holds one; handlers read it with `@Environment(\.configuration)`.
///
/// ```swift
/// let app = EnvironmentNode("notes-server")
/// app.set(\.configuration, to: NotesConfiguration(port: 8081))
/// ```
public struct NotesConfiguration: Sendable, Equatable {
  /// The address the server listens on. Always loopback: the example is not meant to be exposed.
  public var host: String
  /// The TCP port the server listens on; 0 asks the system for a free one.
  public var port: Int
  /// The largest request body accepted, in bytes; a larger one gets 413.
  public var maximumBodySize: Int
  /// How long a delete-all confirmation token stays valid after it is issued.
  public var deletionTokenLifetime: Duration
  /// The header that names the authenticated user.
  public var userHeaderName: String
  /// How long a connection may stay idle before the server closes it: sending nothing, or not
  /// finishing a request's head or body, while no response is being written.
  ///
  /// Every open connection holds one of the process's file descriptors, and the process has a
  /// limited number of them; without this, idle connections would keep them forever, and once
  /// they were all taken, no one else's connection would be accepted.
  public var idleTimeout: Duration

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - port: The TCP port to listen on.
  ///   - maximumBodySize: The largest request body accepted, in bytes.
  ///   - deletionTokenLifetime: How long a delete-all confirmation token stays valid.
  ///   - userHeaderName: The header that names the authenticated user.
  ///   - idleTimeout: How long a connection may stay idle before the server closes it.
  public init(
    port: Int = 8080, maximumBodySize: Int = 16 * 1024,
    deletionTokenLifetime: Duration = .seconds(60), userHeaderName: String = "X-User",
    idleTimeout: Duration = .seconds(30)
  ) {
    self.host = "127.0.0.1"
    self.port = port
    self.maximumBodySize = maximumBodySize
    self.deletionTokenLifetime = deletionTokenLifetime
    self.userHeaderName = userHeaderName
    self.idleTimeout = idleTimeout
  }
}

extension EnvironmentValues {
  static let configuration = Entry(NotesConfiguration())

  /// The server's configuration. The app node sets it from the command line; the default is
  /// ``NotesConfiguration/init(port:maximumBodySize:deletionTokenLifetime:userHeaderName:idleTimeout:)``'s.
  ///
  /// ```swift
  /// @Environment(\.configuration) var configuration
  /// ```
  public var configuration: NotesConfiguration {
    get { self[Self.configuration] }
    set { self[Self.configuration] = newValue }
  }
}
