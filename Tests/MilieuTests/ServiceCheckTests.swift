import Milieu
import MilieuTestSupport
import Testing

/// One call builds every declared service, starts and stops them, and reports every problem.
@Suite struct ServiceCheckTests {
  @Test func aSoundGraphPassesAndIsLeftStopped() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    try await app.checkServices([\.notesService, \.metrics], forTests: true)
    #expect(script.log.count(of: "running notesService") == 1)
    #expect(
      script.log.all.last == "stop database postgres://app" || script.log.all.last == "stop metrics"
    )
    // Checked, nothing runs: the node starts its services as usual.
    try await app.startServices([\.notesService]).stop()
  }

  @Test func everyProblemIsReportedAtOnceWithItsPath() async throws {
    let script = ServiceScript(failingStarts: ["searchIndex"])
    let app = serviceNode(script: script)
    let error = await #expect(throws: ServiceError.self) {
      try await app.checkServices(
        [\.brokenService, \.cyclicA, \.notesService, \.sharedService, \.metrics], forTests: true)
    }
    let failures = error?.failures ?? []
    #expect(failures.map { "\($0.reason)" }.prefix(2) == ["build failed: oops", "cycle"])
    #expect(
      failures.map(\.service) == ["brokenService", "cyclicA", "sharedService", "searchIndex"])
    #expect(failures.last?.path == ["notesService", "searchIndex"])
    #expect(failures[2].description.contains("has a lifecycle and is built from defaults alone"))
    // The services with no problem of their own started and stopped; the shared default, which
    // a test would share with the program, never started.
    #expect(script.log.count(of: "running metrics") == 1)
    #expect(script.log.count(of: "stop metrics") == 1)
    #expect(script.log.count(of: "stop database postgres://app") == 1)
    #expect(script.log.count(of: "start notesService") == 0)
    #expect(EnvironmentValues().sharedService.script.log.all.isEmpty)
  }

  @Test func aServiceBuiltFromAValueSetForTheTestHasAValueForTests() async throws {
    let app = serviceNode()
    app.set(\.sharedService, to: ScriptedService("shared", app[\.serviceScript]))
    try await app.checkServices([\.sharedService], forTests: true)
    // Outside tests, defaults are what the program runs with.
    try await serviceNode().checkServices([\.checkedDefault])
  }
}
