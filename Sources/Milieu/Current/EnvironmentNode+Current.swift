extension EnvironmentNode {
  /// The node made current by the innermost ``withCurrent(_:)`` scope, if any.
  ///
  /// Declared without the `@TaskLocal` wrapper so that it can be `@usableFromInline`: both forms
  /// of `withCurrent` are inlinable, because unspecialized they looked up the metadata of
  /// `Result<Result, Failure>` on every call, most of the cost of a scope.
  @usableFromInline static let scoped = TaskLocal<EnvironmentNode?>(wrappedValue: nil)

  /// The node that code running now reads from.
  ///
  /// Inside ``withCurrent(_:)`` it is that node, in the closure and in every `Task {}` created
  /// there. Outside any scope, and in a `Task.detached`, it is ``root``.
  ///
  /// ```swift
  /// let request = app.child("request")
  /// request.withCurrent {
  ///   print(EnvironmentNode.current === request)  // true
  /// }
  /// ```
  public static var current: EnvironmentNode { scopedNode ?? root }

  /// The node of the innermost scope, `nil` outside any: `scoped.get()`, read without
  /// `TaskLocal.get`'s generic copy.
  package static var scopedNode: EnvironmentNode? { taskLocalReference(scoped) }

  /// The node an ``Environment`` wrapper made now binds to: ``current``, unless a value that
  /// several nodes share is being built on this thread. A wrapper made then would read from
  /// whichever node built the value first and keep that node alive with it; that is reported,
  /// and the wrapper reads from ``root``.
  @usableFromInline
  static func nodeForWrapper() -> EnvironmentNode {
    guard let build = DerivedBuild.innermost, build.isShared else { return current }
    build.reporter.report(
      EnvironmentIssue(
        """
        An @Environment wrapper was made while building \(build.name), \
        a value shared by every node that sees its inputs, so the wrapper has no one node to \
        read from. Read the value from the values the build receives and pass it in. The \
        wrapper reads from the root node.
        """, at: build.derivation.declaration))
    return root
  }

  /// Runs synchronous code with this node as ``current``.
  ///
  /// Scopes nest; the previous current node is restored when `body` returns or throws.
  ///
  /// ```swift
  /// let service = request.withCurrent { NoteService() }  // its @Environment reads `request`
  /// ```
  ///
  /// - Parameter body: The code to run.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, with its type unchanged.
  @inlinable
  public func withCurrent<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let outcome = Self.scoped.withValue(self) {
      Swift.Result { () throws(Failure) -> Result in try body() }
    }
    return try outcome.get()
  }

  /// Runs asynchronous code with this node as ``current``.
  ///
  /// Child tasks and `Task {}` created inside inherit the node; `Task.detached` does not, and
  /// reads ``root`` unless it enters a scope of its own.
  ///
  /// ```swift
  /// try await request.withCurrent {
  ///   try await handler.respond()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - isolation: The actor the body runs on; leave the default.
  ///   - body: The code to run.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, with its type unchanged.
  @inlinable
  public func withCurrent<Result, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    let outcome = await Self.scoped.withValue(self) {
      () async -> Swift.Result<Result, Failure> in
      // Naming `isolation` makes the closure run on the caller's actor. A closure that does not
      // capture it is nonisolated: it would leave the actor, and `body` would hop back to it.
      _ = isolation
      do throws(Failure) {
        return .success(try await body())
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }
}
