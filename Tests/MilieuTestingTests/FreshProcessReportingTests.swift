import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether an issue fails the running test must not depend on what ran before it in the
/// process. Each test here starts this test binary afresh, runs one fixture in it — a test that
/// shows a broken alert and calls no `MilieuTesting` API — and checks that the fixture failed.
@Suite struct FreshProcessReportingTests {
  @Test func badInputFailsASwiftTestingTestInAFreshProcess() throws {
    let run = try TestBinary.run(swiftTesting: "badInputFixture")
    #expect(run.status != 0, "the fixture passed:\n\(run.output)")
    #expect(run.output.contains("breaks the rule \"at most one cancel button\""), "\(run.output)")
    #expect(!run.output.contains("warning:"), "the issue went to standard error:\n\(run.output)")
  }

  @Test func anAlertWithNoHostFailsASwiftTestingTestInAFreshProcess() throws {
    let run = try TestBinary.run(swiftTesting: "noHostFixture")
    #expect(run.status != 0, "the fixture passed:\n\(run.output)")
    #expect(run.output.contains("no host is installed"), "\(run.output)")
    #expect(!run.output.contains("warning:"), "the issue went to standard error:\n\(run.output)")
  }

  @Test func badInputFailsAnXCTestCaseInAFreshProcess() throws {
    let run = try TestBinary.run(
      xcTest: "MilieuTestingTests.ReportingFixtureXCTests/testBadInputFixture")
    #expect(run.status != 0, "the fixture passed:\n\(run.output)")
    #expect(run.output.contains("breaks the rule \"at most one cancel button\""), "\(run.output)")
    #expect(run.output.contains("with 1 failure"), "\(run.output)")
    #expect(!run.output.contains("warning:"), "the issue went to standard error:\n\(run.output)")
  }

  @Test func outsideAnyTestAnIssueIsOneLineOnStandardError() throws {
    let run = try TestBinary.run(swiftTesting: "detachedIssueFixture")
    #expect(run.status == 0, "the fixture failed:\n\(run.output)")
    #expect(run.output.contains("warning: MilieuTestingTests/FreshProcessReportingTests.swift:"))
  }

  @Test func theDemoLinksNeitherTestingNorXCTest() throws {
    let demo = try #require(
      bytes(of: TestBinary.folder + "/milieu-demo"),
      "run `swift build` first: the demo binary is missing")
    for library in ["libXCTest.so", "libTesting.so"] {
      #expect(demo.firstRange(of: Array(library.utf8)) == nil, "milieu-demo links \(library)")
    }
  }
}

// MARK: Fixtures

/// Set in the environment of the fresh process that runs a fixture; the fixtures do nothing
/// without it, so that an ordinary run passes them.
private let fixtureVariable = "MILIEU_REPORTING_FIXTURE"
private let runsFixtures = getenv(fixtureVariable) != nil

private struct NoHostService {
  @Environment(\.showAlert) var showAlert
}

/// Fails when bad input fails the test: run only by the tests above, in a fresh process.
@Test(.enabled(if: runsFixtures)) func badInputFixture() {
  _ = AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
}

/// Fails when an alert with no host fails the test: run only in a fresh process.
@Test(.enabled(if: runsFixtures)) func noHostFixture() async {
  let service = EnvironmentNode("bare").withCurrent { NoHostService() }
  _ = await service.showAlert.ask(title: "Anyone there?")
}

/// Passes: an issue raised where no test is running is a warning on standard error.
@Test(.enabled(if: runsFixtures)) func detachedIssueFixture() async {
  await Task.detached {
    _ = AlertData(title: "", buttons: [])
  }.value
}

/// The XCTest fixture: does nothing unless run in a fresh process by the tests above.
final class ReportingFixtureXCTests: XCTestCase {
  func testBadInputFixture() throws {
    guard runsFixtures else { return }
    _ = AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
  }
}

// MARK: Running the test binary

/// Starts this test binary again, in a new process, to run one test.
private enum TestBinary {
  struct Run {
    var status: Int32
    /// Standard output and standard error, interleaved as written.
    var output: String
  }

  /// The running test binary.
  static let path: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    return count > 0
      ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : CommandLine.arguments[0]
  }()

  /// The folder of the running test binary: the build's products.
  static var folder: String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }

  static func run(swiftTesting test: String) throws -> Run {
    try run(["--testing-library", "swift-testing", "--filter", test])
  }

  static func run(xcTest test: String) throws -> Run {
    try run([test])
  }

  /// Runs the binary with `arguments` and the fixture variable set; waits for it to end, 60
  /// seconds at most, after which it is killed and the test fails.
  private static func run(
    _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Run {
    let output = try makePipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output.write, 1)
    posix_spawn_file_actions_adddup2(&actions, output.write, 2)

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    var environment = ["\(fixtureVariable)=1", "NO_COLOR=1"]
    var cursor = environ
    while let entry = cursor.pointee {
      environment.append(String(cString: entry))
      cursor += 1
    }
    let envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }

    var pid = pid_t()
    let spawned = spawnProcess(&pid, path, &actions, argv, envp)
    close(output.write)
    defer { close(output.read) }
    try #require(spawned == 0, "could not start \(path): errno \(spawned)")

    let (text, finished) = readToEnd(output.read)
    if !finished {
      kill(pid, SIGKILL)
      Issue.record("the test binary did not end within 60 seconds", sourceLocation: sourceLocation)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return Run(status: status, output: text)
  }

  /// Reads a descriptor to its end, waiting in poll(2), 60 seconds at most.
  private static func readToEnd(_ descriptor: Int32) -> (String, finished: Bool) {
    var bytes: [UInt8] = []
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, 1_000) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        bytes += chunk[..<count]
      } else if count == 0 || errno != EINTR {
        return (String(decoding: bytes, as: UTF8.self), true)
      }
    }
    return (String(decoding: bytes, as: UTF8.self), false)
  }
}

/// The bytes of a file, or `nil` when it cannot be opened.
private func bytes(of path: String) -> [UInt8]? {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count <= 0 { return bytes }
    bytes += chunk[..<count]
  }
}
