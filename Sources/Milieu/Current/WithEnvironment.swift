/// Runs code in the environment of an existing service, so that what it makes binds there.
///
/// A service's `@Environment` properties bind to the node that was current when the service
/// was made. A service that makes another one later, in a method, usually runs outside any
/// scope: the new service would bind to the process root and quietly read defaults. Make it
/// inside `withEnvironment(from: self)` instead, as with swift-dependencies'
/// `withDependencies(from:)`:
///
/// ```swift
/// final class LibraryService {
///   @Environment(\.retries) var retries
///
///   func openFolder(_ name: String) -> FolderService {
///     withEnvironment(from: self) { FolderService(name) }  // reads what this service reads
///   }
/// }
/// ```
///
/// The service's node is the node of its `@Environment` properties (see
/// ``EnvironmentNode/of(_:)``). A service with none is reported through the current node's
/// ``EnvironmentValues/issueReporter``, and `body` then runs in the current node.
///
/// A wrapper that binds to the process root because no scope was current is not reported: the
/// root is where a program without scopes keeps everything. `$retries.node` tells where a
/// wrapper binds.
///
/// - Parameters:
///   - service: The service whose environment `body` runs in: a struct, class or actor with an
///     `@Environment` property.
///   - fileID: The call site; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site; leave the default.
///   - column: The call site; leave the default.
///   - body: The code to run, with the service's node current.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, with its type unchanged.
public func withEnvironment<Result, Failure: Error>(
  from service: Any, fileID: String = #fileID, filePath: String = #filePath,
  line: UInt = #line, column: UInt = #column,
  operation body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  let node = EnvironmentNode.serviceNode(
    of: service, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  return try node.withCurrent(body)
}

/// Runs code in a child of an existing service's node, with values overridden for it alone.
///
/// The child is named after the service's type, `withEnvironment(from: Library)`, as
/// ``EnvironmentNode/explain(_:)`` and ``EnvironmentNode/treeDescription(maxDepth:)`` show it.
///
/// ```swift
/// func openFolderOffline(_ name: String) -> FolderService {
///   withEnvironment(from: self) { $0.retries = 0 } operation: { FolderService(name) }
/// }
/// ```
///
/// The service's own node is not changed: the overrides live in a new child node, which is
/// current while `body` runs and is kept alive by what binds to it.
///
/// - Parameters:
///   - service: The service whose environment `body` runs in.
///   - fileID: The call site, also the origin of the overrides; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site, also the origin of the overrides; leave the default.
///   - column: The call site; leave the default.
///   - configure: Writes the overrides.
///   - body: The code to run, with the child current.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, with its type unchanged.
public func withEnvironment<Result, Failure: Error>(
  from service: Any, fileID: String = #fileID, filePath: String = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ configure: (inout EnvironmentValues) -> Void,
  operation body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  let node = EnvironmentNode.serviceNode(
    of: service, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  return try node.child(
    "withEnvironment(from: \(type(of: service)))", fileID: fileID, line: line, configure
  ).withCurrent(body)
}

/// Runs asynchronous code in the environment of an existing service.
///
/// ```swift
/// func sync() async throws {
///   try await withEnvironment(from: self) { try await SyncService().run() }
/// }
/// ```
///
/// - Parameters:
///   - service: The service whose environment `body` runs in.
///   - fileID: The call site; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site; leave the default.
///   - column: The call site; leave the default.
///   - isolation: The actor the body runs on; leave the default.
///   - body: The code to run, with the service's node current.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, with its type unchanged.
public func withEnvironment<Result, Failure: Error>(
  from service: Any, fileID: String = #fileID, filePath: String = #filePath,
  line: UInt = #line, column: UInt = #column,
  isolation: isolated (any Actor)? = #isolation,
  operation body: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
  let node = EnvironmentNode.serviceNode(
    of: service, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  return try await node.withCurrent(body)
}

/// Runs asynchronous code in a child of an existing service's node, with values overridden for
/// it alone.
///
/// The child is named after the service's type, `withEnvironment(from: Library)`, as
/// ``EnvironmentNode/explain(_:)`` and ``EnvironmentNode/treeDescription(maxDepth:)`` show it.
///
/// ```swift
/// try await withEnvironment(from: self) { $0.retries = 0 } operation: {
///   try await SyncService().run()
/// }
/// ```
///
/// - Parameters:
///   - service: The service whose environment `body` runs in.
///   - fileID: The call site, also the origin of the overrides; leave the default.
///   - filePath: The call site; leave the default.
///   - line: The call site, also the origin of the overrides; leave the default.
///   - column: The call site; leave the default.
///   - isolation: The actor the body runs on; leave the default.
///   - configure: Writes the overrides.
///   - body: The code to run, with the child current.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, with its type unchanged.
public func withEnvironment<Result, Failure: Error>(
  from service: Any, fileID: String = #fileID, filePath: String = #filePath,
  line: UInt = #line, column: UInt = #column,
  isolation: isolated (any Actor)? = #isolation,
  _ configure: (inout EnvironmentValues) -> Void,
  operation body: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
  let node = EnvironmentNode.serviceNode(
    of: service, at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  return try await node.child(
    "withEnvironment(from: \(type(of: service)))", fileID: fileID, line: line, configure
  ).withCurrent(body)
}

extension EnvironmentNode {
  /// The node a service reads from: the node of its first `@Environment` property, looking
  /// through its superclasses too; `nil` when it has none.
  ///
  /// ```swift
  /// let service = request.withCurrent { NoteService() }
  /// EnvironmentNode.of(service) === request  // true
  /// ```
  ///
  /// - Parameter service: A struct, class or actor.
  /// - Returns: The node, or `nil`.
  public static func of(_ service: Any) -> EnvironmentNode? {
    if let wrapper = service as? any EnvironmentNodeHolding { return wrapper.node }
    var mirror: Mirror? = Mirror(reflecting: service)
    while let current = mirror {
      for child in current.children {
        if let wrapper = child.value as? any EnvironmentNodeHolding { return wrapper.node }
      }
      mirror = current.superclassMirror
    }
    return nil
  }

  /// The node of `service`, or, reporting that it has none, the current node.
  static func serviceNode(of service: Any, at callSite: CallSite) -> EnvironmentNode {
    if let node = of(service) { return node }
    let current = EnvironmentNode.current
    current[\.issueReporter].report(
      EnvironmentIssue(
        "withEnvironment(from:) cannot tell which node to run in: \(type(of: service)) has no "
          + "@Environment property, so it reads from no node; the body runs in the current "
          + "node instead. Fix: pass a service with an @Environment property, or make the "
          + "node current yourself with node.withCurrent { … }.",
        at: callSite))
    return current
  }
}

/// A value that reads from a node: what ``EnvironmentNode/of(_:)`` looks for in a service.
protocol EnvironmentNodeHolding {
  var node: EnvironmentNode { get }
}

extension Environment: EnvironmentNodeHolding {}
