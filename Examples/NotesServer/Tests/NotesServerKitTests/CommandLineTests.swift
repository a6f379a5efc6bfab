import Logging
import NotesServerKit
import Testing

@Suite("The command line")
struct CommandLineTests {
  /// A limit like a Linux login's: 1,024 files, which a process may raise to 4,096.
  static let fileLimit = OpenFileLimit(soft: 1_024, hard: 4_096)

  @Test func defaultsToPort8080AndInfo() throws {
    let parsed = try #require(
      try NotesConfiguration.parse(arguments: [], environment: [:], openFileLimit: Self.fileLimit))
    #expect(parsed.configuration.port == 8080)
    #expect(parsed.configuration.host == "127.0.0.1")
    #expect(parsed.logLevel == .info)
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
    #expect(fromEnvironment.logLevel == .debug)
    #expect(fromEnvironment.configuration.idleTimeout == .seconds(5))
    #expect(fromEnvironment.configuration.requestTimeout == .seconds(6))
    #expect(fromEnvironment.configuration.writeTimeout == .seconds(7))
    #expect(fromEnvironment.configuration.maximumConnections == 100)

    let fromOptions = try #require(
      try NotesConfiguration.parse(
        arguments: [
          "--port", "9001", "--log-level", "error", "--idle-timeout", "0.25",
          "--request-timeout", "0.5", "--write-timeout", "2", "--max-connections", "768",
        ],
        environment: environment, openFileLimit: Self.fileLimit))
    #expect(fromOptions.configuration.port == 9001)
    #expect(fromOptions.logLevel == .error)
    #expect(fromOptions.configuration.idleTimeout == .milliseconds(250))
    #expect(fromOptions.configuration.requestTimeout == .milliseconds(500))
    #expect(fromOptions.configuration.writeTimeout == .seconds(2))
    #expect(fromOptions.configuration.maximumConnections == 768)
  }

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

  @Test(arguments: [
    (["--port", "http"], "the port is a number from 0 to 65535, not 'http'"),
    (["--port", "70000"], "the port is a number from 0 to 65535, not '70000'"),
    (["--port"], "--port needs a value"),
    (["--log-level", "loud"], "unknown log level 'loud'"),
    (
      ["--idle-timeout", "0"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not '0'"
    ),
    (
      ["--idle-timeout", "soon"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not 'soon'"
    ),
    (
      ["--idle-timeout", "nan"],
      "the idle timeout is a number of seconds from 0.001 to 86400, not 'nan'"
    ),
    (
      ["--request-timeout", "-1"],
      "the request timeout is a number of seconds from 0.001 to 86400, not '-1'"
    ),
    (
      ["--write-timeout", "never"],
      "the write timeout is a number of seconds from 0.001 to 86400, not 'never'"
    ),
    (
      ["--max-connections", "0"],
      "the most connections is a number from 1 to 768, what an open-file limit of 1024 leaves"
        + " room for, not '0'"
    ),
    (
      ["--max-connections", "769"],
      "the most connections is a number from 1 to 768, what an open-file limit of 1024 leaves"
        + " room for, not '769'"
    ),
    (["--max-connections"], "--max-connections needs a value"),
    (["--verbose"], "unknown argument '--verbose'"),
    (
      ["--store", ":memory:"],
      "':memory:' is not the path of a file: SQLite would keep the notes in memory and lose"
        + " them when the server stops; name a file, such as notes.sqlite (./:memory: for a"
        + " file of that name)"
    ),
    (
      ["--store", "file:notes.sqlite?mode=memory"],
      "'file:notes.sqlite?mode=memory' is not the path of a file: SQLite would open it as a URI,"
        + " by its own rules (mode=memory keeps nothing); name the file itself (./file:… for a"
        + " file whose name starts so)"
    ),
    (
      ["--store", "postgres://ada:secret@db:abc/notes"],
      "the port 'abc' is not a number from 1 to 65535 in the PostgreSQL postgres://…@db:abc/notes"
        + " URL: write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
    ),
    (
      ["--store", "postgres://:secret@db/notes"],
      "no user in the PostgreSQL postgres://…@db/notes URL: write it as"
        + " postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
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
