import Milieu

/// Reads of derived values, beside plain entries holding the same kind of service.
enum DerivedCases {
  /// A node below one that sets the plain service and the derived one's input, with the derived
  /// service built; and wrappers bound to it that have read both once.
  static func fixtures() -> (node: EnvironmentNode, readers: ServiceReaders) {
    let top = EnvironmentNode("services")
    top.update {
      $0.retries = 5
      $0.plainService = Service(retries: 5)
    }
    let node = top.child()
    let readers = node.withCurrent { ServiceReaders() }
    blackHole(readers.plainService)
    blackHole(readers.service)
    return (node, readers)
  }

  static let all: [CountedCase] = [
    CountedCase("entries read once each, per entry") { count in
      let entries = (0..<count).map { EnvironmentValues.Entry($0) }
      let values = EnvironmentNode("inputs").values
      blackHole(entries.reduce(0) { $0 + values[$1] })
    },
    // One iteration is one more input of one build: a cost per input that grew with the count
    // would show as a count far above the plain reads'.
    CountedCase(
      "derived value's first build, per input read",
      baseline: "entries read once each, per entry"
    ) { count in
      let entries = (0..<count).map { EnvironmentValues.Entry($0) }
      let sum = EnvironmentValues.Derived { values in entries.reduce(0) { $0 + values[$1] } }
      blackHole(EnvironmentNode("inputs").values[sum])
    },
    CountedCase("EnvironmentValues read, plain entry holding a service") { iterations in
      let (node, _) = fixtures()
      let values = node.values
      for _ in 0..<iterations { blackHole(values.plainService) }
    },
    CountedCase("EnvironmentValues read, derived service, built") { iterations in
      let (node, _) = fixtures()
      let values = node.values
      for _ in 0..<iterations { blackHole(values.service) }
    },
    CountedCase("@Environment read, plain entry holding a service") { iterations in
      let (_, readers) = fixtures()
      for _ in 0..<iterations { blackHole(readers.plainService) }
    },
    CountedCase("@Environment read, derived service, built") { iterations in
      let (_, readers) = fixtures()
      for _ in 0..<iterations { blackHole(readers.service) }
    },
    CountedCase(
      "derived value's first read, in a child with one override",
      baseline: "child with one override, read"
    ) { iterations in
      let top = EnvironmentNode("top")
      top.set(\.retries, to: 5)
      for iteration in 0..<iterations {
        let child = top.child { $0.retries = iteration }
        blackHole(child[\.settings])
      }
    },
  ]
}
