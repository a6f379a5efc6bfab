import Milieu
import Synchronization
import Testing

@Suite struct ExplanationTests {
  /// A node's name may come from a request: every diagnostic that prints it prints it on one
  /// line, its control characters and escape sequences made visible, so it cannot forge a line
  /// or drive a terminal.
  @Test func aHostileNodeNameIsPrintedNeutralised() {
    let node = EnvironmentNode("app").child("x\nretries at node \"app\" is 0\u{1B}[2J") {
      $0.retries = 1
    }
    let printed = [
      node.description, node.explain(\.retries).description, node.treeDescription(),
    ]
    for text in printed {
      #expect(!text.contains("\u{1B}"), "\(text)")
      #expect(!text.contains("x\nretries"), "\(text)")
    }
    #expect(node.description == #"node "x retries at node "app" is 0^[[2J""#)
  }

  @Test func aDefaultIsExplainedAsTheDefault() {
    let leaf = EnvironmentNode("app").child("leaf")
    let explanation = leaf.explain(\.retries)
    #expect(explanation.source == .defaultValue)
    #expect(
      explanation.description
        == "retries at node \"leaf\" is 3, the default: no node from node \"leaf\" up to its root sets it."
    )
  }

  @Test func aValueSetHereNamesTheLine() {
    let node = EnvironmentNode("request")
    let line: UInt = #line + 1
    node.set(\.retries, to: 5)
    let explanation = node.explain(\.retries)
    guard case .override(let origin) = explanation.source else {
      Issue.record("expected an override, got \(explanation.source)")
      return
    }
    #expect(origin.fileID == #fileID)
    #expect(origin.line == line)
    #expect(origin.nodeName == "request")
    #expect(
      explanation.description
        == "retries at node \"request\" is 5, set here at \(#fileID):\(line). It shadows the default 3."
    )
  }

  /// Values that code copied out of a child's configuration and then wrote to another node
  /// are set where each write happened: recording the second origin leaves the first alone.
  @Test func valuesCopiedOutOfOneWriteKeepTheirOriginWhenWrittenAgain() {
    let app = EnvironmentNode("app")
    var kept = EnvironmentValues()
    let childLine: UInt = #line + 1
    let child = app.child("child") { values in
      values.retries = 5
      kept = values
    }
    let other = EnvironmentNode("other")
    let otherLine: UInt = #line + 1
    other.update { $0 = kept }
    guard case .override(let childOrigin) = child.explain(\.retries).source,
      case .override(let otherOrigin) = other.explain(\.retries).source
    else {
      Issue.record("expected both values to be overrides")
      return
    }
    #expect(childOrigin.line == childLine && childOrigin.nodeName == "child")
    #expect(otherOrigin.line == otherLine && otherOrigin.nodeName == "other")
    #expect(other[\.retries] == 5)
  }

  @Test func aValueSetAtAnAncestorNamesTheAncestorAndWhatItShadows() {
    let app = EnvironmentNode("app")
    let appLine: UInt = #line + 1
    app.set(\.greeting, to: "Hi")
    let requestLine: UInt = #line + 1
    let request = app.child("request") { $0.greeting = "Yo" }
    let leaf = request.child("leaf")

    let explanation = leaf.explain(\.greeting)
    #expect(
      explanation.description
        == "greeting at node \"leaf\" is \"Yo\", set on node \"request\" at \(#fileID):\(requestLine). "
        + "It shadows \"Hi\" set on node \"app\" at \(#fileID):\(appLine), and the default \"Hello\"."
    )
    #expect(explanation.keys.first?.candidates.count == 3)
  }

  @Test func aKeyPathThatReadsTwoKeysExplainsBoth() {
    let node = EnvironmentNode("n")
    node.set(\.retries, to: 2)
    let explanation = node.explain(\.summary)
    #expect(explanation.keys.map(\.name) == ["greeting", "retries"])
  }

  /// Each key a key path reads shows its own default, not the key path's value on empty values.
  @Test func eachKeyOfAKeyPathThatReadsSeveralShowsItsOwnDefault() {
    let node = EnvironmentNode("n")
    node.set(\.explainedFirst, to: 10)
    let explanation = node.explain(\.explainedSum)
    #expect(explanation.keys.map(\.name) == ["explainedFirst", "explainedSecond"])
    #expect(explanation.keys.first?.candidates.map(\.value) == ["10", "1"])
    #expect(explanation.description.contains("It shadows the default 1."))
    #expect(explanation.keys.last?.candidates.map(\.value) == ["2"])
    #expect(explanation.description.contains("explainedSecond at node \"n\" is 2, the default"))
  }

  /// A key type read at its default shows that key's default.
  @Test func aKeyTypeReadAtItsDefaultShowsItsOwnDefault() {
    let node = EnvironmentNode("n")
    node.set(\.explainedFirst, to: 10)
    let explanation = node.explain(\.explainedFirstAndKey)
    #expect(explanation.keys.map(\.name) == ["explainedFirst", "ExplainedDefaultKey"])
    #expect(explanation.keys.map { $0.candidates.map(\.value) } == [["10", "1"], ["20"]])
    #expect(
      explanation.description.hasSuffix(
        "ExplainedDefaultKey at node \"n\" is 20, the default: no node from node \"n\" up to its "
          + "root sets it."))
  }

  /// `explain` reads the key path as the node does and nothing more: it builds no derived value
  /// from values the node does not see.
  @Test func explainingBuildsNoValueTheNodesReadDoesNot() {
    let node = EnvironmentNode("n")
    node.set(\.explainedFirst, to: 10)
    #expect(node[\.explainedDoublePlusSecond] == 22)
    #expect(explainedDoubleBuilds.load(ordering: .relaxed) == 1)
    let explanation = node.explain(\.explainedDoublePlusSecond)
    #expect(explanation.keys.map(\.name) == ["explainedDouble", "explainedSecond"])
    #expect(explainedDoubleBuilds.load(ordering: .relaxed) == 1)
  }

  @Test func environmentKeysAreNamedByTheirType() {
    let node = EnvironmentNode("n")
    node.set(\.requestTimeout, to: 1)
    #expect(node.explain(\.requestTimeout).keys.map(\.name) == ["RequestTimeoutKey"])
  }
}

@Suite struct TreeDescriptionTests {
  @Test func theDumpDrawsNamesOverridesAndOrigins() {
    let app = EnvironmentNode("app")
    let line: UInt = #line + 1
    app.set(\.retries, to: 3)
    let library = app.child("library")
    let folder = library.child("folder") { $0.greeting = "Hey" }
    let sheet = app.child("sheet")

    let file = #fileID
    #expect(
      app.treeDescription() == """
        node "app"
        │  retries = 3  (\(file):\(line))
        ├─ node "sheet"
        └─ node "library"
           └─ node "folder"
                 greeting = "Hey"  (\(file):\(line + 2))
        """)
    withExtendedLifetime((folder, sheet)) {}
  }

  /// A node's overrides are listed in the order they were written: its creation's first, then
  /// each update's, a replaced value where its replacement was written.
  @Test func overridesAreListedInTheOrderTheyWereWritten() {
    let child = EnvironmentNode("app").child("child") {
      $0.greeting = "Hey"
      $0.retries = 1
    }
    child.set(\.ratio, to: 0.25)
    child.set(\.retries, to: 2)
    child.set(\.isOn, to: true)

    let names = child.treeDescription().split(separator: "\n").dropFirst().map {
      String($0.drop { $0 == " " }.prefix { $0 != " " })
    }
    #expect(names == ["greeting", "ratio", "retries", "isOn"])
  }

  @Test func droppedNodesLeaveTheDump() {
    let app = EnvironmentNode("app")
    var temporary: EnvironmentNode? = app.child("temporary")
    #expect(app.treeDescription().contains("temporary"))
    _ = temporary
    temporary = nil
    #expect(app.treeDescription() == "node \"app\"")
  }

  /// The dump holds no node's lock while it describes values, so a description may read the
  /// tree it is drawn from.
  @Test func aValueWhoseDescriptionReadsTheTreeIsDrawn() {
    let app = EnvironmentNode("app")
    app.set(\.retries, to: 7)
    let sheet = app.child("sheet") { $0.liveDescription = LiveDescription() }
    let dump = sheet.withCurrent { app.treeDescription() }
    #expect(dump.contains("liveDescription = sees retries 7"))
  }

  @Test func theDumpStopsAtTheDepthLimit() {
    let root = EnvironmentNode("root")
    let child = root.child("child")
    let grandchild = child.child("grandchild")
    #expect(
      root.treeDescription(maxDepth: 1) == """
        node "root"
        └─ node "child"
           └─ … 1 more below, past the depth limit
        """)
    withExtendedLifetime(grandchild) {}
  }
}

/// How often `explainedDouble` was built; only `explainingBuildsNoValueTheNodesReadDoesNot`
/// reads it.
private let explainedDoubleBuilds = Atomic<Int>(0)

extension EnvironmentValues {
  static let explainedFirst = Entry(1)
  var explainedFirst: Int {
    get { self[Self.explainedFirst] }
    set { self[Self.explainedFirst] = newValue }
  }

  static let explainedSecond = Entry(2)
  var explainedSecond: Int {
    get { self[Self.explainedSecond] }
    set { self[Self.explainedSecond] = newValue }
  }

  /// Reads two entries, whose defaults are 1 and 2.
  var explainedSum: Int { explainedFirst + explainedSecond }

  /// Reads an entry, whose default is 1, and a key type, whose default is 20.
  var explainedFirstAndKey: Int { explainedFirst + self[ExplainedDefaultKey.self] }

  static let explainedDouble = Derived { values in
    explainedDoubleBuilds.add(1, ordering: .relaxed)
    return values.explainedFirst * 2
  }
  var explainedDouble: Int { self[Self.explainedDouble] }

  /// Reads a derived value built from `explainedFirst`, and an entry.
  var explainedDoublePlusSecond: Int { explainedDouble + explainedSecond }
}

private struct ExplainedDefaultKey: EnvironmentKey {
  static var defaultValue: Int { 20 }
}

/// A value whose description reads the current node.
struct LiveDescription: Sendable, CustomStringConvertible {
  var description: String { "sees retries \(EnvironmentNode.current[\.retries])" }
}

extension EnvironmentValues {
  static let liveDescription = Entry<LiveDescription?>(nil)
  var liveDescription: LiveDescription? {
    get { self[Self.liveDescription] }
    set { self[Self.liveDescription] = newValue }
  }
}

@Suite struct DeepTreeDescriptionTests {
  /// The dump walks the tree iteratively: a chain 10,000 deep is drawn whole, without exhausting
  /// the stack.
  @Test func aTenThousandDeepChainIsDrawnWithoutExhaustingTheStack() {
    let root = EnvironmentNode("deep")
    var chain = [root]
    for _ in 0..<10_000 { chain.append(chain[chain.count - 1].child()) }
    let lines = root.treeDescription(maxDepth: 10_000).split(separator: "\n")
    #expect(lines.count == 10_001)
    #expect(lines.last?.hasSuffix("└─ an unnamed node") == true)
    let limited = root.treeDescription(maxDepth: 2).split(separator: "\n")
    #expect(limited.count == 4)
    #expect(limited.last?.hasSuffix("└─ … 1 more below, past the depth limit") == true)
  }
}
