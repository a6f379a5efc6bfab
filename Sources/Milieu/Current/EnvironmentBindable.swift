/// A value that learns which node it was read from, so that what it does later happens there.
///
/// An action in the environment — `showAlert`, say — is called long after it was read, often
/// while some other node is current. When `@Environment` reads a value of a conforming type, it
/// hands the value the node the wrapper reads from, and the value can then report its issues to
/// that node's ``EnvironmentValues/issueReporter`` and name that node, whichever node is current
/// when it is called:
///
/// ```swift
/// struct Beep: EnvironmentBindable {
///   var node: EnvironmentNode?
///   func bound(to node: EnvironmentNode) -> Beep { Beep(node: node) }
///   func callAsFunction() {
///     (node ?? .current).withCurrent { reportIssue("no speaker here") }
///   }
/// }
/// ```
///
/// Only `@Environment` binds: a value read with a node's subscript (`node[\.showAlert]`) is
/// handed over as it is stored, and acts where it is called. A wrapper whose value type is a
/// generic parameter does not know it conforms, and does not bind either.
public protocol EnvironmentBindable: Sendable {
  /// This value, bound to the node it was read from.
  ///
  /// - Parameter node: The node the `@Environment` wrapper reads from.
  /// - Returns: The value, knowing its node.
  func bound(to node: EnvironmentNode) -> Self
}

extension Environment where Value: EnvironmentBindable {
  /// Binds to the current node and reads the value at a key path from it, bound to that node.
  ///
  /// ```swift
  /// @Environment(\.showAlert) var showAlert  // reports to, and names, the node it reads from
  /// ```
  ///
  /// - Parameter keyPath: The value to read.
  @inlinable
  public init(_ keyPath: KeyPath<EnvironmentValues, Value> & Sendable) {
    self.init(node: .nodeForWrapper()) { values, node in
      StoredValue(values[keyPath: keyPath].bound(to: node))
    }
  }
}
