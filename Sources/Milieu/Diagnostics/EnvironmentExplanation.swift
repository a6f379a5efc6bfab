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

    /// `the default`, or `set on node "app" at App/Main.swift:12`.
    public var description: String {
      switch self {
      case .defaultValue: "the default"
      case .override(let origin): "set on \(origin)"
      }
    }
  }

  /// One key that the explained key path reads, with every value it could have at the node.
  public struct Key: Sendable {
    /// The accessor or key name, such as `retries`.
    public let name: String
    /// The value the node reads, described, then what it shadows, nearest first; the last
    /// element is always the default.
    public let candidates: [(value: String, source: Source)]

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
          candidate.source == .defaultValue
            ? "the default \(candidate.value)" : "\(candidate.value) \(candidate.source)"
        }
        sentence += " It shadows " + Self.list(shadowed) + "."
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
    let reads = Self.reads(of: keyPath, in: EnvironmentValues())
    var seen = Set<ObjectIdentifier>()
    let keys = reads.filter { seen.insert($0.identifier).inserted }.map { read in
      var candidates: [(value: String, source: EnvironmentExplanation.Source)] = []
      var cursor: EnvironmentNode? = self
      while let node = cursor {
        let slot = node.withLockedState { state, _ in state.overrides.slot(for: read.identifier) }
        if let slot, let origin = slot.origin {
          candidates.append((Self.describe(slot.anyValue), .override(origin)))
        }
        cursor = node.parent
      }
      // With no override anywhere, the key path reads the key's default.
      candidates.append((Self.describe(EnvironmentValues()[keyPath: keyPath]), .defaultValue))
      return EnvironmentExplanation.Key(name: read.name.description, candidates: candidates)
    }
    return EnvironmentExplanation(nodeName: name, keys: keys)
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
