import Logging
import NotesServerKit
import Testing

@Suite("The command line")
struct CommandLineTests {
  @Test func defaultsToPort8080AndInfo() throws {
    let parsed = try #require(try NotesConfiguration.parse(arguments: [], environment: [:]))
    #expect(parsed.configuration.port == 8080)
    #expect(parsed.configuration.host == "127.0.0.1")
    #expect(parsed.logLevel == .info)
    #expect(parsed.configuration.idleTimeout == .seconds(30))
  }

  @Test func optionsWinOverEnvironmentVariables() throws {
    let environment = ["NOTES_PORT": "9000", "NOTES_LOG_LEVEL": "debug", "NOTES_IDLE_TIMEOUT": "5"]
    let fromEnvironment = try #require(
      try NotesConfiguration.parse(arguments: [], environment: environment))
    #expect(fromEnvironment.configuration.port == 9000)
    #expect(fromEnvironment.logLevel == .debug)
    #expect(fromEnvironment.configuration.idleTimeout == .seconds(5))

    let fromOptions = try #require(
      try NotesConfiguration.parse(
        arguments: ["--port", "9001", "--log-level", "error", "--idle-timeout", "0.25"],
        environment: environment))
    #expect(fromOptions.configuration.port == 9001)
    #expect(fromOptions.logLevel == .error)
    #expect(fromOptions.configuration.idleTimeout == .milliseconds(250))
  }

  @Test func helpAsksForTheUsage() throws {
    #expect(try NotesConfiguration.parse(arguments: ["--help"], environment: [:]) == nil)
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
    (["--verbose"], "unknown argument '--verbose'"),
  ])
  func badArgumentsAreNamed(arguments: [String], message: String) {
    #expect {
      try NotesConfiguration.parse(arguments: arguments, environment: [:])
    } throws: { error in
      (error as? NotesConfiguration.CommandLineError)?.description == message
    }
  }
}
