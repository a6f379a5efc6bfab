/// Where an override was written: the source location and the node that holds it.
///
/// Every value a node overrides remembers its origin, so ``EnvironmentNode/explain(_:)`` and
/// ``EnvironmentNode/treeDescription(maxDepth:)`` can say who set what:
///
/// ```swift
/// let origin = node.explain(\.retries).source
/// print(origin)  // set on node "request" at App/Server.swift:42
/// ```
public struct EnvironmentOrigin: Sendable, Hashable, CustomStringConvertible {
  /// The file that wrote the override, as `#fileID` spells it (`Module/File.swift`).
  public let fileID: String
  /// The line that wrote the override.
  public let line: UInt
  /// The name of the node that holds the override, if the node has one.
  public let nodeName: String?

  /// The location as `File.swift:12`.
  public var location: String { "\(fileID):\(line)" }

  /// A description such as `node "request" at App/Server.swift:42`.
  public var description: String {
    "\(EnvironmentNode.displayName(nodeName)) at \(location)"
  }
}
