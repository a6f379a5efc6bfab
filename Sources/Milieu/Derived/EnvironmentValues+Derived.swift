extension EnvironmentValues {
  /// A key for a value built from other environment values: a service built from the clients,
  /// loggers and settings it needs, rebuilt wherever one of them is overridden.
  ///
  /// Declare it like an ``Entry``, with the code that builds the value in place of a default.
  /// The accessor usually has a getter only:
  ///
  /// ```swift
  /// extension EnvironmentValues {
  ///   static let repository = Derived { values in
  ///     NotesRepository(api: values.apiClient, logger: values.logger)
  ///   }
  ///   var repository: NotesRepository { self[Self.repository] }
  /// }
  ///
  /// let feature = app.child("feature") { $0.apiClient = .staging }
  /// feature[\.repository]  // built on the staging client, for `feature` and its subtree only
  /// app[\.repository]      // built on the app's client, as before
  /// ```
  ///
  /// Milieu records the values the closure reads. The value is built at its first read and
  /// shared by every node that sees the same values for everything it read; a node that
  /// overrides one of them, a test's environment among them, gets a value of its own, built on
  /// the override; a write to one of them rebuilds it at the next read. See ``DerivedLifetime``
  /// for the other lifetimes.
  ///
  /// Build the value from the `values` the closure receives, which is how Milieu learns what
  /// it reads: what the closure reads any other way (``EnvironmentNode/current``, an
  /// ``Environment`` wrapper made inside it) is not followed. A shared value made of wrappers
  /// would read from whichever node built it first, so Milieu reports a wrapper made while a
  /// shared value is built and binds it to ``EnvironmentNode/root``.
  ///
  /// The build runs on whichever thread reads the value first, so it must not belong to an
  /// actor, nor may what it reads and makes. In a module whose code defaults to the main actor
  /// (`.defaultIsolation(MainActor.self)`), the compiler reports "main actor-isolated property
  /// 'apiClient' can not be referenced from a Sendable closure" for an accessor declared in a
  /// plain `extension EnvironmentValues`, and "call to main actor-isolated initializer
  /// 'init(api:)' in a synchronous nonisolated context" for a type the build makes: write
  /// `nonisolated extension EnvironmentValues`, and `nonisolated final class NotesRepository`.
  ///
  /// A node may still override a derived value outright, with a setter in the accessor or a
  /// test environment's `.set`; the override wins over the derivation below that node.
  ///
  /// A derivation that reads itself, directly or through others, is reported through the
  /// reader's ``EnvironmentValues/issueReporter`` with the whole chain
  /// (`repository → apiClient → repository`) and the place each was declared, and the read that
  /// closes the cycle gets the `fallback`; without a fallback, the program stops there with the
  /// same message, as an unwrapped `nil` would. A derivation that throws is reported too, and its
  /// reads get the fallback until a read builds it without throwing.
  public final class Derived<Value: Sendable>: Sendable {
    @usableFromInline let derivation: AnyDerived

    /// Creates a derived value.
    ///
    /// ```swift
    /// static let repository = Derived { values in
    ///   NotesRepository(api: values.apiClient, logger: values.logger)
    /// }
    /// static let requestID = Derived(.newOnEveryRead) { _ in UUID() }
    /// static let configuration = Derived(fallback: .standard) { values in
    ///   try Configuration(contentsOf: values.configurationFile)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - lifetime: How long one built value is kept; by default, one per set of inputs.
    ///   - fallback: What a read gets when the build throws or closes a cycle. It is not kept:
    ///     the next read builds again. Without one, the program stops there once the issue is
    ///     reported.
    ///   - fileID: Where the value is declared, for diagnostics; leave the default.
    ///   - filePath: The declaration's path; leave the default.
    ///   - line: The declaration's line; leave the default.
    ///   - column: The declaration's column; leave the default.
    ///   - build: Builds the value from the values it reads.
    @inlinable
    public init(
      _ lifetime: DerivedLifetime = .onePerInputs, fallback: Value? = nil,
      fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
      column: UInt = #column,
      _ build: @escaping @Sendable (EnvironmentValues) throws -> Value
    ) {
      // Inlinable, so that the closure, the only code that knows the value's type, is
      // specialized where the value is declared: unspecialized, it looked up its generic types
      // at run time on every build.
      derivation = AnyDerived(
        lifetime: lifetime,
        declaration: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
        make: { values in StoredValue(try build(values)) },
        fallback: fallback.map { StoredValue($0) })
    }
  }

  /// How long a ``Derived`` value, once built, is kept.
  public enum DerivedLifetime: Sendable, Hashable, CustomStringConvertible {
    /// One value for each set of inputs, the default: nodes that see the same values for
    /// everything the build read share one value; a node that overrides one of them gets its
    /// own. The value is freed with the last node that can see it; a value built from defaults
    /// alone is kept for the process, as a `static let` is.
    case onePerInputs
    /// One value for the whole process, built at the first read from the values seen there.
    /// A later read that sees other values for what the build read is reported once, since the
    /// value cannot follow them; use ``onePerInputs`` for a value that should.
    case onePerProcess
    /// A new value on every read, as a factory makes: nothing is kept, and an ``Environment``
    /// wrapper reads it anew each time too.
    case newOnEveryRead

    /// `one per inputs`, `one per process` or `new on every read`.
    public var description: String {
      switch self {
      case .onePerInputs: "one per inputs"
      case .onePerProcess: "one per process"
      case .newOnEveryRead: "new on every read"
      }
    }
  }

  /// Reads a ``Derived`` value, building it if no node that sees the same inputs has; writes an
  /// override of it.
  ///
  /// ```swift
  /// var repository: NotesRepository {
  ///   get { self[Self.repository] }
  ///   set { self[Self.repository] = newValue }  // only to allow overriding it outright
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - derived: The derived value.
  ///   - accessor: The name diagnostics show for the value; defaults to the enclosing property.
  @inlinable
  public subscript<Value: Sendable>(
    derived: Derived<Value>, accessor accessor: StaticString = #function
  ) -> Value {
    get {
      // Inlinable, so that a read of a value built before is specialized where it is made.
      let derivation = derived.derivation
      let key = ObjectIdentifier(derivation)
      if let overridden = value(for: key, as: Value.self) {
        recorder?.recordRead(of: key, name: .accessor(accessor), in: self, detail: derivation)
        return overridden
      }
      // A recorder learns a derived value's inputs from the full path, which records them.
      let cell =
        (recorder == nil ? derivation.cachedCell(in: self) : nil)
        ?? derivation.cell(in: self, name: .accessor(accessor))
      return cell.value.load(as: Value.self)
    }
    set {
      let derivation = derived.derivation
      derivation.learnName(accessor)
      store(newValue, key: ObjectIdentifier(derivation), anchor: derivation)
    }
  }
}
