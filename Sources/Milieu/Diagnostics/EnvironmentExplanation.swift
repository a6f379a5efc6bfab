/// An answer, in words, to "where does this value come from?"
///
/// ``EnvironmentNode/explain(_:)`` returns one. Its ``description`` names the node that set the
/// value read there and where, the overrides it shadows, or says that the value is the default:
///
/// ```swift
/// print(leaf.explain(\.retries))
/// // retries at node "leaf" is 5, set on node "request" at App/Server.swift:42.
/// // It shadows 3 set on node "app" at App/Main.swift:12, and the default 2.
/// ```
public struct EnvironmentExplanation: Sendable, CustomStringConvertible {
  /// Where one candidate value for a key comes from.
  public enum Source: Sendable, Equatable, CustomStringConvertible {
    /// The key's default value: no node on the path sets it.
    case defaultValue
    /// An override, with where it was written and the node that holds it.
    case override(EnvironmentOrigin)
    /// A ``EnvironmentValues/Derived`` value that no node overrides: built from other values,
    /// which ``Key/derivation`` lists.
    case derived(EnvironmentValues.DerivedLifetime)

    /// `the default`, `set on node "app" at App/Main.swift:12`, or `derived (one per inputs)`.
    public var description: String {
      switch self {
      case .defaultValue: "the default"
      case .override(let origin): "set on \(origin)"
      case .derived(let lifetime): "derived (\(lifetime))"
      }
    }
  }

  /// How a derived value is built: what it read, and where it is kept.
  public struct Derivation: Sendable {
    /// One value the build read, and where the explained node's value of it comes from.
    public struct Input: Sendable {
      /// The accessor or key name, such as `apiClient`.
      public let name: String
      /// The value, described.
      public let value: String
      /// Where it comes from: a node that sets it, its default, or, for an input that is
      /// itself derived, its derivation.
      public let source: Source
      /// For a derived input, the names of the values it was built from; empty otherwise.
      public let derivedFrom: [String]
    }

    /// The values the build read, in the order it first read them, the inputs of derived
    /// values it read included.
    public let inputs: [Input]
    /// Where the built value is kept, in words, such as
    /// `kept with apiClient, set on node "feature" at App/Feature.swift:8`.
    public let kept: String
  }

  /// One key that the explained key path reads, with every value it could have at the node.
  public struct Key: Sendable {
    /// The accessor or key name, such as `retries`.
    public let name: String
    /// The value the node reads, described, then what it shadows, nearest first; the last
    /// element is the default, or for a derived value, the value built.
    public let candidates: [(value: String, source: Source)]
    /// For a derived value that no node on the path overrides, how it is built.
    public let derivation: Derivation?

    /// Where the value the node reads comes from.
    public var source: Source { candidates.first?.source ?? .defaultValue }
  }

  /// The node the explanation was asked of.
  public let nodeName: String?
  /// The keys the key path reads, usually one.
  public let keys: [Key]

  /// Where the value comes from: the source of the first key the key path reads.
  public var source: Source { keys.first?.source ?? .defaultValue }

  /// The explanation in words.
  public var description: String {
    let node = EnvironmentNode.displayName(nodeName)
    guard !keys.isEmpty else {
      return "The key path read at \(node) reads no environment value: it is computed."
    }
    return keys.map { key in
      let visible = key.candidates[0]
      var sentence = "\(key.name) at \(node) is \(visible.value), "
      switch visible.source {
      case .defaultValue:
        sentence += "the default: no node from \(node) up to its root sets it."
      case .override(let origin):
        let place =
          origin.nodeName == nodeName ? "set here at \(origin.location)" : "set on \(origin)"
        sentence += "\(place)."
        let shadowed = key.candidates.dropFirst().map { candidate in
          switch candidate.source {
          case .defaultValue: "the default \(candidate.value)"
          case .derived: "the value derived from its inputs"
          case .override: "\(candidate.value) \(candidate.source)"
          }
        }
        sentence += " It shadows " + Self.list(shadowed) + "."
      case .derived(let lifetime):
        let inputs = key.derivation?.inputs ?? []
        let names =
          inputs.count == 2
          ? "\(inputs[0].name) and \(inputs[1].name)"
          : inputs.isEmpty ? "nothing" : Self.list(inputs.map(\.name))
        sentence += "derived (\(lifetime)) from \(names)"
        sentence += key.derivation.map { "; \($0.kept)." } ?? "."
        for input in inputs {
          switch input.source {
          case .defaultValue:
            sentence += "\n  \(input.name): the default."
          case .derived:
            let from = input.derivedFrom.isEmpty ? "nothing" : Self.list(input.derivedFrom)
            sentence += "\n  \(input.name) is \(input.value), \(input.source) from \(from)."
          case .override:
            sentence += "\n  \(input.name) is \(input.value), \(input.source)."
          }
        }
      }
      return sentence
    }.joined(separator: "\n")
  }

  private static func list(_ items: [String]) -> String {
    guard items.count > 1, let last = items.last else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + ", and " + last
  }
}

extension EnvironmentNode {
  /// Explains where the value at a key path comes from, as this node reads it.
  ///
  /// ```swift
  /// print(leaf.explain(\.retries))
  /// // retries at node "leaf" is 5, set here at App/Server.swift:42. It shadows the default 3.
  /// ```
  ///
  /// - Parameter keyPath: The value to explain.
  /// - Returns: Which node set it and where, what it shadows, or that it is the default.
  public func explain<Value>(_ keyPath: KeyPath<EnvironmentValues, Value>) -> EnvironmentExplanation
  {
    let values = self.values
    let (_, reads, attachments) = Self.record(keyPath, in: values)
    let cells = attachments.compactMap { $0 as? DerivedCell }
    var keys: [EnvironmentExplanation.Key] = []
    for (index, read) in reads.enumerated() where !read.isInput {
      var candidates = overrides(of: read.key)
      var derivation: EnvironmentExplanation.Derivation?
      if let derived = read.detail as? AnyDerived {
        let cell = cells.first { $0.derivation === derived }
        if candidates.isEmpty {
          // A kept value knows its inputs; one built anew for this read, only this read does.
          let inputs = cell?.transitiveInputs ?? Array(reads[(index + 1)...].prefix { $0.isInput })
          derivation = explain(derived, cell: cell, inputs: inputs, in: values)
        }
        let built = cell.map { Self.describe($0.value.anyValue) } ?? "built anew on every read"
        candidates.append((built, .derived(derived.lifetime)))
      } else if let known = read.name.keyDefault
        ?? (read.entry as? any DefaultGiving)?.anyDefaultValue
      {
        candidates.append((Self.describe(known), .defaultValue))
      } else {
        candidates.append(("its default", .defaultValue))
      }
      keys.append(
        EnvironmentExplanation.Key(
          name: read.name.description, candidates: candidates, derivation: derivation))
    }
    return EnvironmentExplanation(nodeName: name, keys: keys)
  }

  /// The overrides of a key from this node up to its root, nearest first.
  private func overrides(of key: ObjectIdentifier)
    -> [(value: String, source: EnvironmentExplanation.Source)]
  {
    var candidates: [(value: String, source: EnvironmentExplanation.Source)] = []
    var cursor: EnvironmentNode? = self
    while let node = cursor {
      let own = node.withLockedState { state, _ in state.own }
      if let own, let position = own.position(of: key), let origin = own.info(at: position).origin {
        candidates.append((Self.describe(own.anyValue(at: position)), .override(origin)))
      }
      cursor = node.parent
    }
    return candidates
  }

  /// What a derived value read and where it is kept.
  private func explain(
    _ derivation: AnyDerived, cell: DerivedCell?, inputs: [ReadRecorder.Read],
    in values: EnvironmentValues
  ) -> EnvironmentExplanation.Derivation {
    let described = inputs.map { read in
      let found = values.record(for: read.key)
      if found == nil, let derived = read.detail as? AnyDerived {
        // An input that is itself derived, which no node sets: its own build's value.
        let built = cell?.dependencies.first { $0.derivation === derived }
        return EnvironmentExplanation.Derivation.Input(
          name: read.name.description,
          value: built.map { Self.describe($0.value.anyValue) } ?? "built anew on every read",
          source: .derived(derived.lifetime),
          derivedFrom: (built?.inputs ?? []).map(\.name.description))
      }
      return EnvironmentExplanation.Derivation.Input(
        name: read.name.description,
        value: found.map { Self.describe($0.frame.anyValue(at: $0.position)) } ?? "the default",
        source: found.flatMap { $0.frame.info(at: $0.position).origin }.map { .override($0) }
          ?? .defaultValue,
        derivedFrom: [])
    }
    let anchor = cell?.anchor.flatMap { anchor in
      values.record(for: anchor.key).flatMap {
        found -> (name: String, origin: EnvironmentOrigin)? in
        let info = found.frame.info(at: found.position)
        return info.stamp == anchor.stamp ? info.origin.map { (info.name, $0) } : nil
      }
    }
    let kept: String
    switch derivation.lifetime {
    case .newOnEveryRead: kept = "built anew on every read, never kept"
    case .onePerProcess: kept = "kept for the process, built where it was first read"
    case .onePerInputs:
      if let anchor {
        kept =
          "kept with \(anchor.name), set on \(anchor.origin), for every node that sees the same "
          + "inputs"
      } else if cell?.anchor == nil, cell != nil {
        kept = "built from defaults alone, kept for the process"
      } else {
        kept = "kept for every node that sees the same inputs"
      }
    }
    return EnvironmentExplanation.Derivation(inputs: described, kept: kept)
  }

  /// A short, single-line description of a value for diagnostics.
  static func describe(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
      guard let wrapped = mirror.children.first?.value else { return "nil" }
      return describe(wrapped)
    }
    var text = String(describing: value)
    text = String(text.map { $0.isNewline ? " " : $0 })
    if text.count > 80 { text = String(text.prefix(79)) + "…" }
    if value is String { return "\"\(text)\"" }
    return text
  }
}
