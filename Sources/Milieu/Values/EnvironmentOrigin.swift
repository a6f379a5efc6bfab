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
  /// The fields, in one object that every value of a write shares: stamping a value with its
  /// origin retains it once, and a slot keeps one reference.
  let record: Record

  /// The fields of an origin. A node keeps the record its first overrides were stamped with,
  /// or one made for its name alone, as its label.
  final class Record: Sendable {
    let fileID: String
    let line: UInt
    let nodeName: String?
    let serial: UInt64

    init(fileID: String, line: UInt, nodeName: String?, serial: UInt64) {
      self.fileID = fileID
      self.line = line
      self.nodeName = nodeName
      self.serial = serial
    }
  }

  init(_ record: Record) {
    self.record = record
  }

  init(fileID: String, line: UInt, nodeName: String?, serial: UInt64) {
    record = Record(fileID: fileID, line: line, nodeName: nodeName, serial: serial)
  }

  /// The file that wrote the override, as `#fileID` spells it (`Module/File.swift`).
  public var fileID: String { record.fileID }
  /// The line that wrote the override.
  public var line: UInt { record.line }
  /// The name of the node that holds the override, if the node has one.
  public var nodeName: String? { record.nodeName }
  /// Orders the writes to one node: 0 for the overrides a child is made with, then the node's
  /// version after each write, so a later write has a larger number.
  var serial: UInt64 { record.serial }

  /// The location as `File.swift:12`.
  public var location: String { "\(fileID):\(line)" }

  /// A description such as `node "request" at App/Server.swift:42`.
  public var description: String {
    "\(EnvironmentNode.displayName(nodeName)) at \(location)"
  }

  /// Whether two origins name the same write: the same location, node name and place in the
  /// node's order of writes.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.record === rhs.record
      || (lhs.fileID == rhs.fileID && lhs.line == rhs.line && lhs.nodeName == rhs.nodeName
        && lhs.serial == rhs.serial)
  }

  /// Hashes what `==` compares.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(fileID)
    hasher.combine(line)
    hasher.combine(nodeName)
    hasher.combine(serial)
  }
}
