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
  }

  @Test func optionsWinOverEnvironmentVariables() throws {
    let environment = ["NOTES_PORT": "9000", "NOTES_LOG_LEVEL": "debug"]
    let fromEnvironment = try #require(
      try NotesConfiguration.parse(arguments: [], environment: environment))
    #expect(fromEnvironment.configuration.port == 9000)
    #expect(fromEnvironment.logLevel == .debug)

    let fromOptions = try #require(
      try NotesConfiguration.parse(
        arguments: ["--port", "9001", "--log-level", "error"], environment: environment))
    #expect(fromOptions.configuration.port == 9001)
    #expect(fromOptions.logLevel == .error)
  }

  @Test func helpAsksForTheUsage() throws {
    #expect(try NotesConfiguration.parse(arguments: ["--help"], environment: [:]) == nil)
  }

  @Test(arguments: [
    (["--port", "http"], "the port is a number from 0 to 65535, not 'http'"),
    (["--port", "70000"], "the port is a number from 0 to 65535, not '70000'"),
    (["--port"], "--port needs a value"),
    (["--log-level", "loud"], "unknown log level 'loud'"),
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
