import Logging
import NotesServerKit
import Testing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@Suite("The command line")
struct CommandLineTests {
  /// A limit like a Linux login's: 1,024 files, which a process may raise to 4,096.
  static let fileLimit = OpenFileLimit(soft: 1_024, hard: 4_096)

  @Test func defaultsToPort8080AndInfo() throws {
    let parsed = try #require(
      try NotesConfiguration.parse(arguments: [], environment: [:], openFileLimit: Self.fileLimit))
    #expect(parsed.configuration.port == 8080)
    #expect(parsed.configuration.host == "127.0.0.1")
    #expect(parsed.configuration.logLevel == .info)
    #expect(parsed.configuration.store == .sqlite(path: "notes.sqlite"))
    #expect(parsed.sources == [:])
    #expect(!parsed.printsConfiguration)
    #expect(parsed.configuration.idleTimeout == .seconds(30))
    #expect(parsed.configuration.requestTimeout == .seconds(10))
    #expect(parsed.configuration.writeTimeout == .seconds(30))
    #expect(parsed.configuration.maximumConnections == 768)
  }

  @Test func optionsWinOverEnvironmentVariables() throws {
    let environment = [
      "NOTES_PORT": "9000", "NOTES_LOG_LEVEL": "debug", "NOTES_IDLE_TIMEOUT": "5",
      "NOTES_REQUEST_TIMEOUT": "6", "NOTES_WRITE_TIMEOUT": "7", "NOTES_MAX_CONNECTIONS": "100",
    ]
    let fromEnvironment = try #require(
      try NotesConfiguration.parse(
        arguments: [], environment: environment, openFileLimit: Self.fileLimit))
    #expect(fromEnvironment.configuration.port == 9000)
    #expect(fromEnvironment.configuration.logLevel == .debug)
    #expect(fromEnvironment.configuration.idleTimeout == .seconds(5))
    #expect(fromEnvironment.configuration.requestTimeout == .seconds(6))
    #expect(fromEnvironment.configuration.writeTimeout == .seconds(7))
    #expect(fromEnvironment.configuration.maximumConnections == 100)
    #expect(fromEnvironment.sources.count == 6)
    #expect(fromEnvironment.sources["idle-timeout"] == .environment(variable: "NOTES_IDLE_TIMEOUT"))
    #expect(
      fromEnvironment.sources["max-connections"]
        == .environment(variable: "NOTES_MAX_CONNECTIONS"))

    let fromOptions = try #require(
      try NotesConfiguration.parse(
        arguments: [
          "--port", "9001", "--log-level", "error", "--idle-timeout", "0.25",
          "--request-timeout", "0.5", "--write-timeout", "2", "--max-connections", "768",
        ],
        environment: environment, openFileLimit: Self.fileLimit))
    #expect(fromOptions.configuration.port == 9001)
    #expect(fromOptions.configuration.logLevel == .error)
    #expect(fromOptions.configuration.idleTimeout == .milliseconds(250))
    #expect(fromOptions.configuration.requestTimeout == .milliseconds(500))
    #expect(fromOptions.configuration.writeTimeout == .seconds(2))
    #expect(fromOptions.configuration.maximumConnections == 768)
    #expect(fromOptions.sources["port"] == .commandLine(option: "--port"))
    #expect(fromOptions.sources["idle-timeout"] == .commandLine(option: "--idle-timeout"))
    #expect(fromOptions.sources.count == 6)
  }

  /// `--option=value` is `--option value`; a value is taken whole, commas and all; the last of
  /// an option given twice wins.
  @Test func anOptionTakesItsValueWholeEitherWay() throws {
    let parsed = try #require(
      try NotesConfiguration.parse(
        arguments: ["--port=9002", "--store", "notes,old.sqlite", "--port", "9003"],
        environment: [:], openFileLimit: Self.fileLimit))
    #expect(parsed.configuration.port == 9003)
    #expect(parsed.configuration.store == .sqlite(path: "notes,old.sqlite"))
    let equals = try #require(
      try NotesConfiguration.parse(
        arguments: ["--store=postgres://ada:pa=ss@db/notes"], environment: [:],
        openFileLimit: Self.fileLimit))
    #expect(equals.configuration.store == .postgres(url: "postgres://ada:pa=ss@db/notes"))
  }

  /// `--print-config` shows every setting's value and where it came from, an option, a
  /// variable or the default, with a URL's password redacted.
  @Test func printConfigShowsEachValueAndWhereItCameFrom() throws {
    let parsed = try #require(
      try NotesConfiguration.parse(
        arguments: ["--print-config", "--port", "9000"],
        environment: [
          "NOTES_LOG_LEVEL": "debug", "NOTES_STORE": "postgres://ada:s3cret@db.internal/notes",
          "NOTES_PORT": "7000",
        ], openFileLimit: Self.fileLimit))
    #expect(parsed.printsConfiguration)
    #expect(
      parsed.report == """
        port              9000                                              set by --port
        store             postgres://ada:<redacted>@db.internal:5432/notes  set by NOTES_STORE
        log-level         debug                                             set by NOTES_LOG_LEVEL
        idle-timeout      30                                                the default
        request-timeout   10                                                the default
        write-timeout     30                                                the default
        max-connections   768                                               the default: the \
        open-file limit, 1024, less a quarter, at least 32
        start-timeout     10                                                the default
        shutdown-timeout  10                                                the default
        """)
    #expect(!parsed.report.contains("s3cret"))
  }

  /// The executable prints what it would run with, and exits without starting anything: the
  /// store's file is not made.
  @Test func theServerPrintsItsConfigurationAndExits() async throws {
    try await withTestDatabase(.sqlite) { database in
      let server = try ServerProcess(
        store: database.location, arguments: ["--print-config", "--idle-timeout=0.25"],
        environment: ["NOTES_LOG_LEVEL": "debug", "NOTES_WRITE_TIMEOUT": "7"])
      let status = await server.exitStatus(within: .seconds(20))
      #expect(status == 0, "\(server.printed)")
      let lines = server.printed.split(separator: "\n").map {
        $0.split(separator: " ").joined(separator: " ")
      }
      #expect(lines.contains("port 0 set by --port"), "\(server.printed)")
      #expect(lines.contains("store \(database.location) set by --store"))
      #expect(lines.contains("log-level debug set by NOTES_LOG_LEVEL"))
      #expect(lines.contains("idle-timeout 0.25 set by --idle-timeout"))
      #expect(lines.contains("write-timeout 7 set by NOTES_WRITE_TIMEOUT"))
      #expect(lines.contains("shutdown-timeout 10 the default"))
      #expect(!FileManager.default.fileExists(atPath: database.location))
    }
  }

  #if !PostgreSQL
    /// A build without the PostgreSQL trait refuses a PostgreSQL URL before anything starts or
    /// is logged, names where the URL came from, and says how to build a server that takes it.
    @Test func aBuildWithoutPostgreSQLSaysHowToGetIt() async throws {
      let server = try ServerProcess(store: "postgres://notes@127.0.0.1/notes")
      let status = await server.exitStatus(within: .seconds(20))
      #expect(status == 64, "\(server.printed)")
      #expect(
        server.printed.hasPrefix(
          "error: this NotesServer was built without the PostgreSQL store"), "\(server.printed)")
      #expect(server.printed.contains("swift build --traits PostgreSQL"), "\(server.printed)")
      #expect(server.printed.contains("NotesServer (--store)\n"), "\(server.printed)")
    }

    /// A PostgreSQL server named for the tests is not passed over in silence by a build that
    /// cannot use it.
    @Test func aPostgreSQLServerForTheTestsNeedsTheTrait() {
      let advice = "run the tests with --traits PostgreSQL, as test-both-stores.sh does"
      #expect(
        StoreKind.postgresURL == nil,
        "NOTES_TEST_POSTGRES_URL is set, but this build has no PostgreSQL store: \(advice)")
    }
  #endif

  /// A quarter of the limit, at least 32, stays for the server's own files; never less than
  /// one connection.
  @Test(arguments: [(16, 1), (64, 32), (256, 192), (1_024, 768), (1_048_576, 786_432)])
  func theConnectionsLeaveRoomForTheServersOwnFiles(soft: Int, connections: Int) {
    #expect(OpenFileLimit(soft: soft, hard: soft).connections == connections)
  }

  @Test func helpAsksForTheUsage() throws {
    #expect(
      try NotesConfiguration.parse(
        arguments: ["--help"], environment: [:], openFileLimit: Self.fileLimit) == nil)
  }

  /// A bad value from a variable names the variable, so that the mistake is found where it
  /// was made.
  @Test func aBadValueFromAVariableNamesTheVariable() {
    #expect {
      try NotesConfiguration.parse(
        arguments: [], environment: ["NOTES_SHUTDOWN_TIMEOUT": "later"],
        openFileLimit: Self.fileLimit)
    } throws: { error in
      (error as? NotesConfiguration.CommandLineError)?.description
        == "the shutdown timeout is a number of seconds from 0.001 to 86400, not 'later'"
        + " (NOTES_SHUTDOWN_TIMEOUT)"
    }
  }

  @Test(arguments: [
    (["--port", "http"], "the port is a number from 0 to 65535, not 'http' (--port)"),
    (["--port=70000"], "the port is a number from 0 to 65535, not '70000' (--port)"),
    (["--port"], "--port needs a value"),
    (
      ["--log-level", "loud"],
      "unknown log level 'loud' (--log-level): write trace, debug, info, notice, warning, error"
        + " or critical"
    ),
    (
      ["--idle-timeout", "0"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not '0' (--idle-timeout)"
    ),
    (
      ["--idle-timeout", "soon"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not 'soon' (--idle-timeout)"
    ),
    (
      ["--idle-timeout", "nan"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not 'nan' (--idle-timeout)"
    ),
    (
      ["--request-timeout", "-1"],
      "the request timeout is a number of seconds from 0.001 to 86400, not '-1'"
        + " (--request-timeout)"
    ),
    (
      ["--write-timeout", "never"],
      "the write timeout is a number of seconds from 0.001 to 86400, not 'never'"
        + " (--write-timeout)"
    ),
    (
      ["--max-connections", "0"],
      "the most connections is a number from 1 to 768, what an open-file limit of 1024 leaves"
        + " room for, not '0' (--max-connections)"
    ),
    (
      ["--max-connections", "769"],
      "the most connections is a number from 1 to 768, what an open-file limit of 1024 leaves"
        + " room for, not '769' (--max-connections)"
    ),
    (["--max-connections"], "--max-connections needs a value"),
    (["--verbose"], "unknown argument '--verbose'"),
    (["--prot", "9000"], "unknown argument '--prot'"),
    (["notes.sqlite"], "unknown argument 'notes.sqlite'"),
    (
      ["--store", ":memory:"],
      "':memory:' is not the path of a file: SQLite would keep the notes in memory and lose"
        + " them when the server stops; name a file, such as notes.sqlite (./:memory: for a"
        + " file of that name) (--store)"
    ),
    (
      ["--store", "file:notes.sqlite?mode=memory"],
      "'file:notes.sqlite?mode=memory' is not the path of a file: SQLite would open it as a URI,"
        + " by its own rules (mode=memory keeps nothing); name the file itself (./file:… for a"
        + " file whose name starts so) (--store)"
    ),
    (
      ["--store", "postgres://ada:secret@db:abc/notes"],
      "the port 'abc' is not a number from 1 to 65535 in the PostgreSQL postgres://…@db:abc/notes"
        + " URL: write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (--store)"
    ),
    (
      ["--store", "postgres://:secret@db/notes"],
      "no user in the PostgreSQL postgres://…@db/notes URL: write it as"
        + " postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (--store)"
    ),
  ])
  func badArgumentsAreNamed(arguments: [String], message: String) {
    #expect {
      try NotesConfiguration.parse(
        arguments: arguments, environment: [:], openFileLimit: Self.fileLimit)
    } throws: { error in
      (error as? NotesConfiguration.CommandLineError)?.description == message
    }
  }
}
