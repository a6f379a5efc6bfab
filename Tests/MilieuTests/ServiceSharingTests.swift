import Foundation
@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Testing

/// A service that several nodes use runs once, from the first start that needs it until the
/// last node that uses it stops, and stops after everything that reads it.
@Suite struct ServiceSharingTests {
  /// Which node starts its services first, and which stops them first.
  struct Order: Sendable, CustomTestStringConvertible {
    let starts: [String]
    let stops: [String]

    var testDescription: String {
      "\(starts[0]) starts first, \(stops[0]) stops first"
    }

    static let all = [
      Order(starts: ["app", "tenant"], stops: ["app", "tenant"]),
      Order(starts: ["app", "tenant"], stops: ["tenant", "app"]),
      Order(starts: ["tenant", "app"], stops: ["app", "tenant"]),
      Order(starts: ["tenant", "app"], stops: ["tenant", "app"]),
    ]

    /// What each node's start or stop does, in the order of the calls: the journal of a run in
    /// this order.
    var journal: [[String]] {
      starts.enumerated().map { position, node in
        (position == 0 ? ["start metricsExporter"] : [])
          + ["start database \(node)", "start searchIndex \(node)"]
      }
        + stops.enumerated().map { position, node in
          ["stop searchIndex \(node)", "stop database \(node)"]
            + (position == 1 ? ["stop metricsExporter"] : [])
        }
    }
  }

  /// The app's metrics exporter is read by the tenant's own database: the tenant uses it, so it
  /// runs until both nodes stopped, and stops after the database that stops last.
  @Test(arguments: Order.all)
  func aSharedServiceRunsUntilTheLastNodeThatUsesItStops(_ order: Order) async throws {
    let issues = IssueLog()
    let script = ServiceScript()
    let app = sharingNode(script: script, issues: issues)
    let tenant = app.child("tenant") { $0.site = "tenant" }
    let nodes = ["app": app, "tenant": tenant]
    var running: [String: RunningServices] = [:]
    var journal: [[String]] = []
    for name in order.starts {
      let before = startsAndStops(script).count
      running[name] = try await #require(nodes[name]).startServices([\.siteNotes])
      journal.append(Array(startsAndStops(script)[before...]))
    }
    #expect(running[order.starts[0]]?.services == ["metricsExporter", "siteDatabase", "siteIndex"])
    #expect(running[order.starts[1]]?.services == ["siteDatabase", "siteIndex"])
    for name in order.stops {
      let before = startsAndStops(script).count
      try await #require(running[name]).stop()
      journal.append(Array(startsAndStops(script)[before...]))
    }
    #expect(journal == order.journal)
    #expect(issues.messages.isEmpty)
    // The article shows the same journal for this order.
    #expect(try Self.articleJournals()[order.testDescription] == order.journal)
  }

  /// The journals *Services with lifecycles* shows, by order: each a line naming the order,
  /// then a line per call, its entries after the call, separated by commas.
  static func articleJournals() throws -> [String: [[String]]] {
    let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Milieu/Milieu.docc/ServicesWithLifecycles.md")
    let text = try String(contentsOf: article, encoding: .utf8)
    let section = try #require(text.components(separatedBy: "## A tenant's services").last)
    let block = try #require(section.components(separatedBy: "```text\n").dropFirst().first)
    var journals: [String: [[String]]] = [:]
    var order = ""
    for line in try #require(block.components(separatedBy: "\n```").first).split(separator: "\n") {
      guard line.hasPrefix("  ") else {
        order = String(line)
        continue
      }
      let call = line.drop { $0 == " " }
      let entries = try #require(call.range(of: "  ")).upperBound
      journals[order, default: []].append(
        call[entries...].trimmingCharacters(in: .whitespaces).components(separatedBy: ", "))
    }
    return journals
  }

  /// A start that needs a service while another node's stop stops it waits for that stop to
  /// return, then starts it afresh: it never reads a service that is closing.
  @Test func aStartWaitsForTheStopOfAServiceThenStartsItAfresh() async throws {
    let stopping = Gate()
    let script = ServiceScript(
      stopGates: ["metricsExporter": stopping], opening: ["gate": stopping])
    let app = sharingNode(script: script)
    let tenant = app.child("tenant")
    let appServices = try await app.startServices([\.metricsExporter])
    let appStop = Task { try await appServices.stop() }
    await eventually("the exporter is stopping") {
      startsAndStops(script).contains("stop metricsExporter")
    }
    // The tenant claims the exporter while it stops; its gatekeeper, which starts at the same
    // time, then lets the stop return.
    let tenantServices = try await tenant.startServices([\.metricsExporter, \.gatekeeper])
    try await appStop.value
    #expect(
      startsAndStops(script) == [
        "start metricsExporter", "stop metricsExporter", "start gate", "stopped metricsExporter",
        "start metricsExporter",
      ])
    #expect(Set(tenantServices.services) == ["metricsExporter", "gatekeeper"])
    try await tenantServices.stop()
    #expect(startsAndStops(script).filter { $0 == "stop metricsExporter" }.count == 2)
  }

  /// A service that another node's stopping service still reads is not stopped by the node
  /// that releases it last: the stop that ends the reader stops it, after the reader.
  @Test func aServiceStopsAfterAReaderThatAnotherNodeIsStopping() async throws {
    let stopping = Gate()
    let script = ServiceScript(stopGates: ["database tenant": stopping])
    let app = sharingNode(script: script)
    let tenant = app.child("tenant") { $0.site = "tenant" }
    let appServices = try await app.startServices([\.siteNotes])
    let tenantServices = try await tenant.startServices([\.siteNotes])
    let tenantStop = Task { try await tenantServices.stop() }
    await eventually("the tenant's database is stopping") {
      startsAndStops(script).contains("stop database tenant")
    }
    try await appServices.stop()
    #expect(!startsAndStops(script).contains("stop metricsExporter"))
    stopping.open()
    try await tenantStop.value
    #expect(
      startsAndStops(script).suffix(6) == [
        "stop searchIndex tenant", "stop database tenant", "stop searchIndex app",
        "stop database app", "stopped database tenant", "stop metricsExporter",
      ])
  }
}

/// A notes service with no lifecycle of its own, built on a site's database and index.
struct SiteNotes: Sendable {
  let database: ScriptedService
  let index: ScriptedService
}

/// A metrics exporter that every site shares, and each site's database, which reports to it,
/// and search index.
extension EnvironmentValues {
  static let site = Entry("app")
  var site: String {
    get { self[Self.site] }
    set { self[Self.site] = newValue }
  }

  static let metricsExporter = Derived { values in
    ScriptedService("metricsExporter", values.serviceScript)
  }
  var metricsExporter: ScriptedService { self[Self.metricsExporter] }

  static let siteDatabase = Derived { values in
    _ = values.metricsExporter
    return ScriptedService("database \(values.site)", values.serviceScript)
  }
  var siteDatabase: ScriptedService { self[Self.siteDatabase] }

  static let siteIndex = Derived { values in
    _ = values.siteDatabase
    return ScriptedService("searchIndex \(values.site)", values.serviceScript)
  }
  var siteIndex: ScriptedService { self[Self.siteIndex] }

  static let siteNotes = Derived { values in
    SiteNotes(database: values.siteDatabase, index: values.siteIndex)
  }
  var siteNotes: SiteNotes { self[Self.siteNotes] }

  static let gatekeeper = Derived { values in ScriptedService("gate", values.serviceScript) }
  var gatekeeper: ScriptedService { self[Self.gatekeeper] }
}

/// An app node of its own, with its script, its issues logged.
func sharingNode(script: ServiceScript, issues: IssueLog = IssueLog()) -> EnvironmentNode {
  EnvironmentNode("sharing").child("app") {
    $0.serviceScript = script
    $0.site = "app"
    $0.issueReporter = issues.reporter
  }
}

/// The journal of a sharing test: what its services' log says of their starts and stops, without
/// the lines that say a start returned.
func startsAndStops(_ script: ServiceScript) -> [String] {
  script.log.all.filter { !$0.hasPrefix("running ") }
}
