import Milieu
import MilieuTestSupport
import Testing

/// Services start in the graph's order, each once, and stop in reverse.
@Suite struct ServiceLifecycleTests {
  @Test func whatAServiceReadsStartsBeforeItAndStopsAfterIt() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let running = try await app.startServices([\.notesService])
    let log = script.log
    #expect(
      log.position(of: "running database postgres://app") < log.position(of: "start searchIndex"))
    #expect(log.position(of: "running searchIndex") < log.position(of: "start notesService"))
    #expect(running.services == ["database", "searchIndex", "notesService"])
    try await running.stop()
    #expect(
      log.all.suffix(3) == [
        "stop notesService", "stop searchIndex", "stop database postgres://app",
      ])
  }

  @Test func aServiceReadByTwoOthersStartsOnce() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    // The database is read by the noteStore (no lifecycle) and by the search index.
    let running = try await app.startServices([\.notesService, \.searchIndex, \.database])
    #expect(script.log.count(of: "start database postgres://app") == 1)
    #expect(script.log.count(of: "start searchIndex") == 1)
    try await running.stop()
    #expect(script.log.count(of: "stop database postgres://app") == 1)
  }

  @Test func independentServicesStartAtTheSameTime() async throws {
    // Each start waits for the other to begin: one after the other, neither would return.
    let meeting = Meeting()
    let script = ServiceScript(meetings: ["metrics": meeting, "database postgres://app": meeting])
    let app = serviceNode(script: script)
    let running = try await app.startServices([\.metrics, \.database])
    #expect(Set(running.services) == ["metrics", "database"])
    try await running.stop()
  }

  @Test func aServiceSetOnANodeOrReadAtItsDefaultStartsBeforeWhatReadsIt() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    app.set(\.mailer, to: ScriptedService("mailer set", script))
    let running = try await app.startServices([\.outbox])
    #expect(running.services == ["mailer", "outbox"])
    try await running.stop()

    // The default is known once the program names it; what reads it starts after it.
    let defaults = serviceNode("defaults", script: script)
    let withDefault = try await defaults.startServices([\.outbox, \.mailer])
    #expect(withDefault.services == ["mailer", "outbox"])
    try await withDefault.stop()
  }

  @Test func aTenantStartsAndStopsTheServicesBuiltForItAlone() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    let tenant = app.child("tenant") { $0.databaseURL = "postgres://tenant" }
    let appServices = try await app.startServices([\.notesService, \.metrics])
    let tenantServices = try await tenant.startServices([\.notesService, \.metrics])
    // The metrics read nothing the tenant overrides: the app's run them.
    #expect(tenantServices.services == ["database", "searchIndex", "notesService"])
    #expect(script.log.count(of: "start metrics") == 1)

    try await tenantServices.stop()
    #expect(script.log.count(of: "stop database postgres://tenant") == 1)
    #expect(script.log.count(of: "stop database postgres://app") == 0)
    #expect(script.log.count(of: "stop metrics") == 0)
    try await appServices.stop()
    #expect(script.log.count(of: "stop metrics") == 1)
    #expect(script.log.count(of: "stop database postgres://app") == 1)
  }

  @Test func stoppingTwiceStopsOnce() async throws {
    let script = ServiceScript()
    let running = try await serviceNode(script: script).startServices([\.metrics])
    try await running.stop()
    try await running.stop()
    #expect(script.log.count(of: "stop metrics") == 1)
  }

  @Test func aNodeStartsItsServicesAgainOnceTheyStopped() async throws {
    let script = ServiceScript()
    let app = serviceNode(script: script)
    try await app.startServices([\.metrics]).stop()
    try await app.startServices([\.metrics]).stop()
    #expect(script.log.count(of: "start metrics") == 2)
  }

  @Test func aServiceStartsAndStopsWithItsNodeCurrent() async throws {
    let app = serviceNode()
    app.set(\.currentNodeProbe, to: CurrentNodeProbe())
    let running = try await app.startServices([\.currentNodeProbe])
    try await running.stop()
    #expect(app[\.currentNodeProbe].nodes == ["start app", "stop app"])
  }
}

/// Records which node is current when it starts and stops.
final class CurrentNodeProbe: LifecycleService {
  private let seen = LifecycleLog()
  var nodes: [String] { seen.all }
  func start() async throws { seen.append("start \(EnvironmentNode.current.name ?? "")") }
  func stop() async throws { seen.append("stop \(EnvironmentNode.current.name ?? "")") }
}

extension EnvironmentValues {
  static let currentNodeProbe = Entry(CurrentNodeProbe())
  var currentNodeProbe: CurrentNodeProbe {
    get { self[Self.currentNodeProbe] }
    set { self[Self.currentNodeProbe] = newValue }
  }
}
