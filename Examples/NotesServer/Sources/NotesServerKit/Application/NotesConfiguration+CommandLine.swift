import Logging

extension NotesConfiguration {
  /// What went wrong reading the command line, with the usage to print.
  public struct CommandLineError: Error, CustomStringConvertible {
    /// What was wrong, in one line.
    public let description: String
  }

  /// How to run the server, for `--help` and after a mistake.
  public static func usage(executable: String) -> String {
    """
    Usage: \(executable) [--store LOCATION] [--port PORT] [--log-level LEVEL]
             [--idle-timeout SECONDS] [--request-timeout SECONDS] [--write-timeout SECONDS]
             [--max-connections COUNT] [--start-timeout SECONDS] [--shutdown-timeout SECONDS]

      --store LOCATION           where the notes live: the path of an SQLite file, created if
                                 missing, for its owner only (default notes.sqlite; not
                                 :memory: or a file: URI, which SQLite would not keep), or a
                                 PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE;
                                 NOTES_STORE

      --port PORT                the TCP port to listen on, on 127.0.0.1 (default 8080; 0
                                 picks a free one); NOTES_PORT
      --log-level LEVEL          trace, debug, info, notice, warning, error or critical
                                 (default info); NOTES_LOG_LEVEL
      --idle-timeout SECONDS     how long a connection may stay idle before it is closed
                                 (default 30); NOTES_IDLE_TIMEOUT
      --request-timeout SECONDS  how long a request may take to arrive whole, from its head to
                                 the end of its body, before it is answered 408 and its
                                 connection closed (default 10); NOTES_REQUEST_TIMEOUT
      --write-timeout SECONDS    how long a client may leave its responses unread, the
                                 server's buffer full, before its connection is closed
                                 (default 30); NOTES_WRITE_TIMEOUT
      --max-connections COUNT    the most connections open at once, more waiting in the listen
                                 backlog (default: the open-file limit less a quarter of it,
                                 at least 32, kept for the server's own files);
                                 NOTES_MAX_CONNECTIONS
      --start-timeout SECONDS    how long the store may take to start (default 10);
                                 NOTES_START_TIMEOUT
      --shutdown-timeout SECONDS how long stopping may take after SIGTERM or SIGINT: requests
                                 in flight finish, then the store closes (default 10);
                                 NOTES_SHUTDOWN_TIMEOUT
      --help                     prints this

    The environment variable named after an option sets it too; the option wins over it.
    Timeouts are from 0.001 to 86400 seconds. The server raises its open-file limit (ulimit -n)
    to the hard limit when it starts, and logs the limit and the connections it allows.

    Exit status: 0 stopped by SIGTERM or SIGINT after serving, everything closed in order;
    64 a bad command line; 69 a service (the store) could not start; 70 a service failed while
    running, or stopping took longer than the shutdown timeout; 143 stopped by SIGTERM or
    SIGINT while starting, what had started closed in order.
    """
  }

  /// Each option that takes a value, and the environment variable that sets it too.
  private static let options = [
    "--port": "NOTES_PORT", "--log-level": "NOTES_LOG_LEVEL",
    "--idle-timeout": "NOTES_IDLE_TIMEOUT", "--request-timeout": "NOTES_REQUEST_TIMEOUT",
    "--write-timeout": "NOTES_WRITE_TIMEOUT", "--max-connections": "NOTES_MAX_CONNECTIONS",
    "--store": "NOTES_STORE", "--start-timeout": "NOTES_START_TIMEOUT",
    "--shutdown-timeout": "NOTES_SHUTDOWN_TIMEOUT",
  ]

  /// Reads the configuration from command-line arguments and environment variables.
  ///
  /// ```swift
  /// let configuration = try NotesConfiguration.parse(
  ///   arguments: ["--port", "8081"], environment: ["NOTES_LOG_LEVEL": "debug"],
  ///   openFileLimit: OpenFileLimit.raise())
  /// ```
  ///
  /// - Parameters:
  ///   - arguments: The arguments, without the executable's name.
  ///   - environment: The process's environment variables.
  ///   - openFileLimit: The process's open-file limit, which bounds the connections; the one
  ///     in force unless given.
  /// - Returns: The configuration and the log level, or `nil` when `--help` was asked for.
  /// - Throws: ``CommandLineError`` for an unknown option or a bad value.
  public static func parse(
    arguments: [String], environment: [String: String],
    openFileLimit: OpenFileLimit = .current
  ) throws(CommandLineError) -> (configuration: NotesConfiguration, logLevel: Logger.Level)? {
    var values = options.compactMapValues { environment[$0] }
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if argument == "--help" || argument == "-h" { return nil }
      guard options[argument] != nil else {
        throw CommandLineError(description: "unknown argument '\(argument)'")
      }
      guard let value = remaining.popFirst() else {
        throw CommandLineError(description: "\(argument) needs a value")
      }
      values[argument] = value
    }
    var configuration = NotesConfiguration(maximumConnections: openFileLimit.connections)
    if let port = values["--port"] {
      guard let number = Int(port), (0...65_535).contains(number) else {
        throw CommandLineError(description: "the port is a number from 0 to 65535, not '\(port)'")
      }
      configuration.port = number
    }
    for (option, name, timeout) in [
      ("--idle-timeout", "idle", \NotesConfiguration.idleTimeout),
      ("--request-timeout", "request", \.requestTimeout),
      ("--write-timeout", "write", \.writeTimeout),
      ("--start-timeout", "start", \.startTimeout),
      ("--shutdown-timeout", "shutdown", \.shutdownTimeout),
    ] {
      guard let value = values[option] else { continue }
      guard let seconds = Double(value), (0.001...86_400).contains(seconds) else {
        throw CommandLineError(
          description: "the \(name) timeout is a number of seconds from 0.001 to 86400, not"
            + " '\(value)'")
      }
      configuration[keyPath: timeout] = .seconds(seconds)
    }
    if let count = values["--max-connections"] {
      let most = openFileLimit.connections
      guard let number = Int(count), (1...most).contains(number) else {
        throw CommandLineError(
          description: "the most connections is a number from 1 to \(most), what an open-file"
            + " limit of \(openFileLimit.soft) leaves room for, not '\(count)'")
      }
      configuration.maximumConnections = number
    }
    if let store = values["--store"] {
      guard !store.isEmpty else {
        throw CommandLineError(
          description: "the store is the path of an SQLite file or a PostgreSQL URL, not ''")
      }
      configuration.store = StoreLocation(parsing: store)
      if case .sqlite(let path) = configuration.store,
        let problem = SQLiteNotesStore.problem(withPath: path)
      {
        throw CommandLineError(description: problem)
      }
      if case .postgres(let url) = configuration.store {
        do {
          _ = try PostgresURLError.configuration(url: url)
        } catch {
          throw CommandLineError(description: error.description)
        }
      }
    }
    var level = Logger.Level.info
    if let logLevel = values["--log-level"] {
      guard let parsed = Logger.Level(rawValue: logLevel) else {
        throw CommandLineError(description: "unknown log level '\(logLevel)'")
      }
      level = parsed
    }
    return (configuration, level)
  }
}

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension NotesConfiguration {
  /// The configuration and the server's logger, from this process's command line and
  /// environment; prints the usage and exits for `--help` or a mistake.
  ///
  /// It raises the process's open-file limit first (``OpenFileLimit/raise()``), so that the
  /// connections the server may hold are counted against the highest limit it can have, and
  /// logs both.
  ///
  /// ```swift
  /// let (configuration, logger, store) = NotesConfiguration.fromCommandLine()
  /// ```
  ///
  /// - Returns: The configuration, a logger at the level asked for, and the store the
  ///   configuration names, not yet started.
  public static func fromCommandLine() -> (
    configuration: NotesConfiguration, logger: Logger, store: any NotesStore
  ) {
    let executable = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") }
    let usage = usage(executable: executable ?? "NotesServer")
    let initialFileLimit = OpenFileLimit.current
    let fileLimit = OpenFileLimit.raise()
    do {
      guard
        let (configuration, logLevel) = try parse(
          arguments: Array(CommandLine.arguments.dropFirst()),
          environment: ProcessInfo.processInfo.environment, openFileLimit: fileLimit)
      else {
        print(usage)
        exit(0)
      }
      // Every line logged in a request carries its id and user, read from the request's node.
      var logger = Logger(label: "NotesServer", metadataProvider: .notesRequest)
      logger.logLevel = logLevel
      logger.info(
        """
        open-file limit \(fileLimit.soft) (was \(initialFileLimit.soft), hard limit \
        \(fileLimit.hard)): at most \(configuration.maximumConnections) connections at once
        """)
      let store = try configuration.store.makeStore(
        startTimeout: configuration.startTimeout, logger: logger)
      return (configuration, logger, store)
    } catch {
      let message = "error: \(error)\n\n\(usage)\n"
      _ = message.utf8CString.withUnsafeBufferPointer {
        write(STDERR_FILENO, $0.baseAddress, $0.count - 1)
      }
      exit(64)
    }
  }
}
