import Logging
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
  /// How long a request may take to arrive whole, from its head to the end of its body; one
  /// still arriving then is answered 408 and its connection closed.
  ///
  /// The idle timeout restarts at every part of a body, so without this a body sent a byte at a
  /// time would hold its connection for as long as its sender liked.
  public var requestTimeout: Duration
  /// How long a client may leave the server unable to write to its connection (it reads
  /// nothing, and the server's buffer for it is full) before the connection is closed.
  public var writeTimeout: Duration
  /// The most connections the server holds open at once; beyond it, new connections wait in the
  /// listen backlog until one closes.
  ///
  /// Each connection holds one of the process's open files, and a process that has used them up
  /// can be stopped by its own runtime; ``OpenFileLimit/connections`` is how many the limit
  /// leaves room for.
  public var maximumConnections: Int
  /// Where the notes live: an SQLite file, or a PostgreSQL database.
  public var store: StoreLocation
  /// How long the server's services (its store) may take to start before it gives up.
  public var startTimeout: Duration
  /// How long stopping may take, once SIGTERM or SIGINT arrives: requests in flight finish,
  /// then the services stop, within it.
  public var shutdownTimeout: Duration
  /// The least important level the server logs.
  public var logLevel: Logger.Level

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - port: The TCP port to listen on.
  ///   - maximumBodySize: The largest request body accepted, in bytes.
  ///   - deletionTokenLifetime: How long a delete-all confirmation token stays valid.
  ///   - userHeaderName: The header that names the authenticated user.
  ///   - idleTimeout: How long a connection may stay idle before the server closes it.
  ///   - requestTimeout: How long a request may take to arrive whole.
  ///   - writeTimeout: How long a client may leave its responses unread.
  ///   - maximumConnections: The most connections open at once; by default, as many as the
  ///     process's open-file limit leaves room for (``OpenFileLimit/connections``).
  ///   - store: Where the notes live.
  ///   - startTimeout: How long the services may take to start.
  ///   - shutdownTimeout: How long stopping may take.
  ///   - logLevel: The least important level logged.
  public init(
    port: Int = 8080, maximumBodySize: Int = 16 * 1024,
    deletionTokenLifetime: Duration = .seconds(60), userHeaderName: String = "X-User",
    idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(10),
    writeTimeout: Duration = .seconds(30), maximumConnections: Int? = nil,
    store: StoreLocation = .sqlite(path: "notes.sqlite"), startTimeout: Duration = .seconds(10),
    shutdownTimeout: Duration = .seconds(10), logLevel: Logger.Level = .info
  ) {
    self.host = "127.0.0.1"
    self.port = port
    self.maximumBodySize = maximumBodySize
    self.deletionTokenLifetime = deletionTokenLifetime
    self.userHeaderName = userHeaderName
    self.idleTimeout = idleTimeout
    self.requestTimeout = requestTimeout
    self.writeTimeout = writeTimeout
    self.maximumConnections = maximumConnections ?? OpenFileLimit.current.connections
    self.store = store
    self.startTimeout = startTimeout
    self.shutdownTimeout = shutdownTimeout
    self.logLevel = logLevel
  }
}

extension EnvironmentValues {
  static let configuration = Entry(NotesConfiguration())

  /// The server's configuration. The app node sets it from the command line; the default is
  /// `NotesConfiguration()`.
  ///
  /// ```swift
  /// @Environment(\.configuration) var configuration
  /// ```
  public var configuration: NotesConfiguration {
    get { self[Self.configuration] }
    set { self[Self.configuration] = newValue }
  }
}
