import Logging

/// Where the notes live, as the command line names it: a PostgreSQL URL, or the path of an
/// SQLite file.
///
/// ```swift
/// try StoreLocation(parsing: "postgres://notes@127.0.0.1/notes")  // .postgres(url: …)
/// try StoreLocation(parsing: "/var/lib/notes.sqlite")  // .sqlite(path: …)
/// ```
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
  /// An SQLite file, created for its owner only if it does not exist.
  case sqlite(path: String)
  /// A PostgreSQL database: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
  case postgres(url: String)

  /// Reads a location: a `postgres://` or `postgresql://` URL is PostgreSQL, anything else
  /// the path of an SQLite file.
  ///
  /// - Parameter text: The location.
  /// - Throws: ``StoreLocationError`` for a URL the PostgreSQL store cannot use, or a name
  ///   SQLite would not take as a path (`:memory:`, a `file:` URI, nothing).
  public init(parsing text: String) throws(StoreLocationError) {
    if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
      _ = try PostgresURL(parsing: text)
      self = .postgres(url: text)
    } else if let problem = SQLiteNotesStore.problem(withPath: text) {
      throw StoreLocationError(description: problem)
    } else {
      self = .sqlite(path: text)
    }
  }

  /// The location as the command line writes it, without a password.
  public var description: String {
    switch self {
    case .sqlite(let path): "SQLite file \(path)"
    case .postgres(let url):
      if let at = url.lastIndex(of: "@"), let scheme = url.firstRange(of: "://") {
        "PostgreSQL \(url[..<scheme.upperBound])…\(url[at...])"
      } else {
        "PostgreSQL"
      }
    }
  }

  /// The location as `--store` takes it, a password replaced by `<redacted>`.
  public var redacted: String {
    switch self {
    case .sqlite(let path): path
    case .postgres(let url): (try? PostgresURL(parsing: url))?.redacted ?? description
    }
  }

  /// Whether the text names a PostgreSQL URL that holds a password: a secret, for
  /// swift-configuration to redact wherever it shows the value.
  ///
  /// - Parameter text: A location, as `--store` takes it.
  /// - Returns: Whether it holds a password.
  static func holdsPassword(_ text: String) -> Bool {
    (try? PostgresURL(parsing: text))?.password != nil
  }

  /// Makes the store this location names; nothing is opened before the store starts.
  ///
  /// - Parameters:
  ///   - startTimeout: How long the store may take to start.
  ///   - logger: Where the store's driver logs.
  /// - Returns: The store.
  /// - Throws: ``StoreLocationError`` for a PostgreSQL URL the store cannot use, or in a build
  ///   without the PostgreSQL trait.
  public func makeStore(
    startTimeout: Duration, logger: Logger
  ) throws(StoreLocationError) -> any NotesStore {
    switch self {
    case .sqlite(let path): return SQLiteNotesStore(path: path, logger: logger)
    case .postgres(let url):
      #if PostgreSQL
        return try PostgresNotesStore(url: url, startTimeout: startTimeout, logger: logger)
      #else
        _ = url
        throw StoreLocationError(description: Self.withoutPostgreSQL)
      #endif
    }
  }

  /// What a build without the PostgreSQL trait says of a PostgreSQL URL.
  static let withoutPostgreSQL =
    "this NotesServer was built without the PostgreSQL store, which keeps postgres-nio and its"
    + " TLS and cryptography out of the default build: build one with the PostgreSQL trait,"
    + " swift build --traits PostgreSQL, or start it with swift run --traits PostgreSQL"
    + " NotesServer"
}

/// A store location the server cannot use, and why.
///
/// ```swift
/// try StoreLocation(parsing: ":memory:")  // ':memory:' is not the path of a file: …
/// ```
public struct StoreLocationError: Error, CustomStringConvertible {
  /// What is wrong, and what to write instead.
  public let description: String
}

/// A PostgreSQL URL, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, read into its parts.
struct PostgresURL: Sendable, Hashable {
  let scheme: String
  let user: String
  let password: String?
  let host: String
  let port: Int
  let database: String

  /// Reads a URL.
  ///
  /// - Parameter url: The URL.
  /// - Throws: ``StoreLocationError`` naming the part that is wrong, and the form expected.
  init(parsing url: String) throws(StoreLocationError) {
    let form = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
    func fail(_ problem: String) -> StoreLocationError {
      StoreLocationError(
        description:
          "\(problem) in the \(StoreLocation.postgres(url: url)) URL: write it as \(form)")
    }
    guard let rest = url.split(separator: "://", maxSplits: 1).last, url.hasPrefix("postgres"),
      ["postgres", "postgresql"].contains(url.prefix { $0 != ":" })
    else { throw fail("no postgres:// scheme") }
    guard let at = rest.lastIndex(of: "@") else { throw fail("no user") }
    let credentials = rest[..<at].split(
      separator: ":", maxSplits: 1, omittingEmptySubsequences: false
    ).map(String.init)
    guard let user = credentials.first, !user.isEmpty else { throw fail("no user") }
    let location = rest[rest.index(after: at)...]
    guard let slash = location.firstIndex(of: "/") else { throw fail("no database") }
    let database = String(location[location.index(after: slash)...])
    guard !database.isEmpty else { throw fail("no database") }
    let hostAndPort = location[..<slash].split(separator: ":", maxSplits: 1)
    guard let host = hostAndPort.first, !host.isEmpty else { throw fail("no host") }
    var port = 5432
    if hostAndPort.count == 2 {
      guard let number = Int(hostAndPort[1]), (1...65_535).contains(number) else {
        throw fail("the port '\(hostAndPort[1])' is not a number from 1 to 65535")
      }
      port = number
    }
    scheme = String(url.prefix { $0 != ":" })
    self.user = user
    password = credentials.dropFirst().first
    self.host = String(host)
    self.port = port
    self.database = database
  }

  /// The URL, its password replaced by `<redacted>`.
  var redacted: String {
    "\(scheme)://\(user)\(password == nil ? "" : ":<redacted>")@\(host):\(port)/\(database)"
  }
}
