extension EnvironmentNode: CustomStringConvertible, CustomDebugStringConvertible {
  /// The node as diagnostics name it: `node "app"`, or `an unnamed node`.
  ///
  /// ```swift
  /// print(EnvironmentNode("app"))  // node "app"
  /// print(EnvironmentNode())       // an unnamed node
  /// ```
  ///
  /// Name the nodes you make, so that logs, explanations and tree dumps tell them apart.
  public var description: String { Self.displayName(name) }

  /// The node with its name as a Swift string literal: `EnvironmentNode("app")`, or
  /// `EnvironmentNode(unnamed)`.
  ///
  /// ```swift
  /// debugPrint(EnvironmentNode("app"))  // EnvironmentNode("app")
  /// ```
  public var debugDescription: String {
    "EnvironmentNode(\(name.map(\.debugDescription) ?? "unnamed"))"
  }
}
