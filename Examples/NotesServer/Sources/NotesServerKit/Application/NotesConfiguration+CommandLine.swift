import Configuration
import Logging

extension NotesConfiguration {
  /// What went wrong reading the command line, with the usage to print.
  public struct CommandLineError: Error, CustomStringConvertible {
    /// What was wrong, in one line.
    public let description: String
  }

  /// A command line, read: the configuration it sets, where each value came from, and whether
  /// it asks only to print them.
  public struct ParsedCommandLine: Sendable {
    /// The configuration.
    public var configuration: NotesConfiguration
    /// Where each setting's value came from, by the setting's option without its dashes:
    /// `port`, `store`, `log-level`, …
    public var sources: [String: SettingSource]
    /// Whether `--print-config` asks to print the configuration and exit.
    public var printsConfiguration: Bool
    /// The open-file limit the most connections were counted against.
    public var openFileLimit: OpenFileLimit

    /// The configuration, one setting a line with its value and where it came from, a
    /// password in a URL redacted: what `--print-config` prints.
    public var report: String {
      let rows = NotesConfiguration.settings.map { name -> (String, String, String) in
        let source = sources[name] ?? .default
        var from = source == .default ? "the default" : "set by \(source)"
        if name == "max-connections", source == .default {
          from += ": the open-file limit, \(openFileLimit.soft), less a quarter, at least 32"
        }
        return (name, configuration.value(of: name), from)
      }
      let nameWidth = rows.map(\.0.count).max() ?? 0
      let valueWidth = rows.map(\.1.count).max() ?? 0
      func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: width - text.count)
      }
      return rows.map { "\(padded($0, nameWidth))  \(padded($1, valueWidth))  \($2)" }
        .joined(separator: "\n")
    }
  }

  /// How to run the server, for `--help` and after a mistake.
  public static func usage(executable: String) -> String {
    """
    Usage: \(executable) [--store LOCATION] [--port PORT] [--log-level LEVEL]
             [--idle-timeout SECONDS] [--request-timeout SECONDS] [--write-timeout SECONDS]
             [--max-connections COUNT] [--start-timeout SECONDS] [--shutdown-timeout SECONDS]
             [--print-config]

      --store LOCATION           where the notes live: the path of an SQLite file, created if
                                 missing, for its owner only (default notes.sqlite; not
                                 :memory: or a file: URI, which SQLite would not keep), or a
                                 PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE,
                                 in a build with the PostgreSQL trait (swift run --traits
                                 PostgreSQL NotesServer); NOTES_STORE, which keeps a password
                                 off the command line
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
      --print-config             prints each setting's value and where it came from (an
                                 option, an environment variable or the default), a password
                                 redacted, and exits
      --help                     prints this

    An option is written --port 9000 or --port=9000. The environment variable named after an
    option sets it too; the option wins over it. Timeouts are from 0.001 to 86400 seconds. The
    server raises its open-file limit (ulimit -n) to the hard limit when it starts, and logs
    the limit and the connections it allows.

    Exit status: 0 stopped by SIGTERM or SIGINT after serving, everything closed in order;
    64 a bad command line; 69 a service (the store) could not start; 70 a service failed while
    running, or stopping took longer than the shutdown timeout; 143 stopped by SIGTERM or
    SIGINT while starting, what had started closed in order.
    """
  }

  /// The settings, in the order `--print-config` shows them, each named by its option without
  /// the dashes. swift-configuration reads each under `notes.` and its name in camel case, so
  /// that an environment variable sets it as `NOTES_` and its name in capitals: `--idle-timeout`
  /// is the key `notes.idleTimeout` and the variable `NOTES_IDLE_TIMEOUT`.
  static let settings = [
    "port", "store", "log-level", "idle-timeout", "request-timeout", "write-timeout",
    "max-connections", "start-timeout", "shutdown-timeout",
  ]

  /// Reads the configuration from command-line arguments and environment variables, through
  /// swift-configuration: the arguments, then the variables, then the defaults.
  ///
  /// The arguments are read strictly here, then handed to swift-configuration as a provider of
  /// their own: its `CommandLineArgumentsProvider` passes over an option it does not know (a
  /// mistyped `--prot 9000` would run on port 8080) and splits a value at its commas (a path
  /// `notes,old.sqlite` would become two).
  ///
  /// ```swift
  /// let parsed = try NotesConfiguration.parse(
  ///   arguments: ["--port", "8081"], environment: ["NOTES_LOG_LEVEL": "debug"],
  ///   openFileLimit: OpenFileLimit.raise())
  /// print(parsed?.sources["log-level"] ?? .default)  // NOTES_LOG_LEVEL
  /// ```
  ///
  /// - Parameters:
  ///   - arguments: The arguments, without the executable's name.
  ///   - environment: The process's environment variables.
  ///   - openFileLimit: The process's open-file limit, which bounds the connections; the one
  ///     in force unless given.
  /// - Returns: The configuration and where each value came from, or `nil` when `--help` was
  ///   asked for.
  /// - Throws: ``CommandLineError`` for an unknown option or a bad value, naming where the
  ///   value came from.
  public static func parse(
    arguments: [String], environment: [String: String],
    openFileLimit: OpenFileLimit = .current
  ) throws(CommandLineError) -> ParsedCommandLine? {
    var given: [String: String] = [:]
    var printsConfiguration = false
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if argument == "--help" || argument == "-h" { return nil }
      if argument == "--print-config" {
        printsConfiguration = true
        continue
      }
      let equals = argument.hasPrefix("--") ? argument.firstIndex(of: "=") : nil
      let option = equals.map { String(argument[..<$0]) } ?? argument
      let name = String(option.dropFirst(2))
      guard option.hasPrefix("--"), settings.contains(name) else {
        throw CommandLineError(description: "unknown argument '\(argument)'")
      }
      guard
        let value = equals.map({ String(argument[argument.index(after: $0)...]) })
          ?? remaining.popFirst()
      else {
        throw CommandLineError(description: "\(option) needs a value")
      }
      given[name] = value
    }
    let values = SettingValues(given: given, environment: environment)
    var configuration = NotesConfiguration(maximumConnections: openFileLimit.connections)
    if let (port, source) = values["port"] {
      guard let number = Int(port), (0...65_535).contains(number) else {
        throw CommandLineError(
          description: "the port is a number from 0 to 65535, not '\(port)' (\(source))")
      }
      configuration.port = number
    }
    for (name, timeout) in [
      ("idle", \NotesConfiguration.idleTimeout), ("request", \.requestTimeout),
      ("write", \.writeTimeout), ("start", \.startTimeout), ("shutdown", \.shutdownTimeout),
    ] {
      guard let (value, source) = values["\(name)-timeout"] else { continue }
      guard let seconds = Double(value), (0.001...86_400).contains(seconds) else {
        throw CommandLineError(
          description: "the \(name) timeout is a number of seconds from 0.001 to 86400, not"
            + " '\(value)' (\(source))")
      }
      configuration[keyPath: timeout] = .seconds(seconds)
    }
    if let (count, source) = values["max-connections"] {
      let most = openFileLimit.connections
      guard let number = Int(count), (1...most).contains(number) else {
        throw CommandLineError(
          description: "the most connections is a number from 1 to \(most), what an open-file"
            + " limit of \(openFileLimit.soft) leaves room for, not '\(count)' (\(source))")
      }
      configuration.maximumConnections = number
    }
    if let (store, source) = values["store"] {
      do {
        configuration.store = try StoreLocation(parsing: store)
      } catch {
        throw CommandLineError(description: "\(error) (\(source))")
      }
    }
    if let (logLevel, source) = values["log-level"] {
      guard let level = Logger.Level(rawValue: logLevel) else {
        throw CommandLineError(
          description: "unknown log level '\(logLevel)' (\(source)): write trace, debug, info,"
            + " notice, warning, error or critical")
      }
      configuration.logLevel = level
    }
    return ParsedCommandLine(
      configuration: configuration, sources: values.sources,
      printsConfiguration: printsConfiguration, openFileLimit: openFileLimit)
  }

  /// A setting's value as its option takes it: seconds for a timeout, a store's URL without
  /// its password.
  ///
  /// - Parameter setting: The setting's name, such as `idle-timeout`.
  /// - Returns: The value.
  func value(of setting: String) -> String {
    func seconds(_ duration: Duration) -> String {
      let (whole, fraction) = duration.components
      return fraction == 0
        ? "\(whole)" : "\(Double(whole) + Double(fraction) / 1_000_000_000_000_000_000)"
    }
    return switch setting {
    case "port": "\(port)"
    case "store": store.redacted
    case "log-level": logLevel.rawValue
    case "idle-timeout": seconds(idleTimeout)
    case "request-timeout": seconds(requestTimeout)
    case "write-timeout": seconds(writeTimeout)
    case "max-connections": "\(maximumConnections)"
    case "start-timeout": seconds(startTimeout)
    case "shutdown-timeout": seconds(shutdownTimeout)
    default: "?"
    }
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
  /// environment; prints the usage and exits for `--help` or a mistake, and the configuration
  /// for `--print-config`.
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
        let parsed = try parse(
          arguments: Array(CommandLine.arguments.dropFirst()),
          environment: ProcessInfo.processInfo.environment, openFileLimit: fileLimit)
      else {
        print(usage)
        exit(0)
      }
      if parsed.printsConfiguration {
        print(parsed.report)
        exit(0)
      }
      let configuration = parsed.configuration
      // Every line logged in a request carries its id and user, read from the request's node.
      var logger = Logger(label: "NotesServer", metadataProvider: .notesRequest)
      logger.logLevel = configuration.logLevel
      let store: any NotesStore
      do {
        store = try configuration.store.makeStore(
          startTimeout: configuration.startTimeout, logger: logger)
      } catch {
        throw CommandLineError(description: "\(error) (\(parsed.sources["store"] ?? .default))")
      }
      logger.info(
        """
        open-file limit \(fileLimit.soft) (was \(initialFileLimit.soft), hard limit \
        \(fileLimit.hard)): at most \(configuration.maximumConnections) connections at once
        """)
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
