import Testing

@testable import Milieu

/// `explain` and tree dumps say what a derived value was built from and where it is kept.
@Suite struct DerivedProvenanceTests {
  @Test func explainNamesTheInputsWhereEachWasSetAndWhereTheValueIsKept() {
    let app = EnvironmentNode("app")
    let clientLine: UInt = #line + 1
    app.set(\.client, to: Client(name: "app"))
    let feature = app.child("feature") { $0.retries = 2 }
    _ = feature[\.repository]

    let explanation = feature.explain(\.repository)
    #expect(explanation.source == .derived(.onePerInputs))
    let derivation = explanation.keys.first?.derivation
    #expect(derivation?.inputs.map(\.name) == ["buildLog", "client", "greeting"])
    #expect(derivation?.inputs[0].source == .defaultValue)
    #expect(derivation?.inputs[2].source == .defaultValue)
    guard case .override(let origin) = derivation?.inputs[1].source else {
      Issue.record("expected client to be an override")
      return
    }
    #expect(origin.nodeName == "app" && origin.line == clientLine)
    #expect(derivation?.kept.hasPrefix("kept with client, set on node \"app\"") == true)
    let lines = explanation.description.split(separator: "\n").map(String.init)
    #expect(
      lines.first?.hasPrefix(
        "repository at node \"feature\" is MilieuTests.Repository, derived (one per inputs) from buildLog, client, and greeting; kept with client"
      ) == true)
    #expect(lines.contains("  greeting: the default."))
    #expect(
      lines.contains { $0.hasPrefix("  client is Client(name: \"app\"), set on node \"app\"") })
  }

  @Test func anOverrideOfADerivedValueIsExplainedAsAnOverrideThatShadowsTheDerivation() {
    let app = EnvironmentNode("app")
    let fake = Repository(client: Client(name: "fake"), label: "fake")
    let test = app.child("test") { $0.repository = fake }
    let explanation = test.explain(\.repository)
    guard case .override = explanation.source else {
      Issue.record("expected an override, got \(explanation.source)")
      return
    }
    #expect(explanation.keys.first?.derivation == nil)
    #expect(explanation.description.hasSuffix("It shadows the value derived from its inputs."))
  }

  @Test func aTreeDumpShowsWhereDerivedValuesAreKeptAndOverridesOfThem() {
    let app = EnvironmentNode("app")
    app.set(\.client, to: Client(name: "app"))
    let test = app.child("test") {
      $0.repository = Repository(client: Client(name: "fake"), label: "fake")
    }
    _ = app[\.feed]
    _ = test[\.feed]

    let lines = app.treeDescription().split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasSuffix("↳ keeps derived feed, repository") })
    #expect(
      lines.contains { $0.hasSuffix("(overrides a derived value)") && $0.contains("repository = ") }
    )
    #expect(lines.contains { $0.hasSuffix("↳ keeps derived feed") })
  }
}

/// An input of a derived value that is itself derived is explained as derived, from its own
/// inputs: "the default" means that no node on the path sets a value.
@Suite struct DerivedInputProvenanceTests {
  @Test func aDerivedInputIsExplainedAsDerivedFromItsInputs() {
    let node = EnvironmentNode("node")
    node.set(\.base, to: 5)
    #expect(node[\.quadruple] == 20)

    let explanation = node.explain(\.quadruple)
    let inputs = explanation.keys.first?.derivation?.inputs ?? []
    #expect(inputs.map(\.name) == ["double", "base"])
    #expect(inputs.first?.source == .derived(.onePerInputs))
    #expect(inputs.first?.value == "10")
    #expect(inputs.first?.derivedFrom == ["base"])
    guard case .override(let origin) = inputs.last?.source else {
      Issue.record("expected base to be set on the node, got \(String(describing: inputs.last))")
      return
    }
    #expect(origin.nodeName == "node")
    let lines = explanation.description.split(separator: "\n").map(String.init)
    #expect(lines.contains("  double is 10, derived (one per inputs) from base."))
    #expect(!explanation.description.contains("double: the default"))
  }
}

extension EnvironmentValues {
  static let base = Entry(1)
  var base: Int {
    get { self[Self.base] }
    set { self[Self.base] = newValue }
  }

  static let double = Derived { $0.base * 2 }
  var double: Int { self[Self.double] }

  static let quadruple = Derived { $0.double * 2 }
  var quadruple: Int { self[Self.quadruple] }
}
