extension EnvironmentValues {
  /// A key for a value that ``EnvironmentValues`` carries, declared without a key type or macro.
  ///
  /// An entry takes two declarations: a static entry holding the default, and the accessor that
  /// reads and writes through it. A static and an instance property may share a name:
  ///
  /// ```swift
  /// extension EnvironmentValues {
  ///   static let retries = Entry(3)
  ///   var retries: Int {
  ///     get { self[Self.retries] }
  ///     set { self[Self.retries] = newValue }
  ///   }
  /// }
  /// ```
  ///
  /// The entry object is the key: two entries named `retries` in different types or modules are
  /// different keys. The default is the value passed to the initializer, which a `static let`
  /// evaluates once per process, when it is first read.
  ///
  /// Declare entries as `static let`. An entry created anew on each use is a new key each time,
  /// so a value written through one is never read through the next.
  public final class Entry<Value: Sendable>: Sendable {
    /// The name of the accessor the entry was first written through, for diagnostics. First, so
    /// that its place does not depend on `Value`.
    @usableFromInline let learnedName = LazyReference<AccessorName>()

    /// The value read when no node on the path to the root sets this entry.
    public let defaultValue: Value

    /// Creates an entry whose default is the given value.
    ///
    /// ```swift
    /// static let greeting = Entry("Hello")
    /// ```
    ///
    /// - Parameter defaultValue: The value read when no node sets this entry.
    public init(_ defaultValue: Value) {
      self.defaultValue = defaultValue
    }
  }
}

extension EnvironmentValues.Entry: NamedKey, DefaultGiving {
  var anyDefaultValue: any Sendable { defaultValue }

  /// Learns the name of the accessor the entry is written through, the first time.
  @inlinable @inline(__always)
  func learnName(_ accessor: StaticString) {
    if learnedName.load() == nil { learnedName.storeIfNil(AccessorName(accessor)) }
  }

  var accessorName: String? { learnedName.load()?.text }
}

/// A key object that gives its default, whatever its value type, for diagnostics.
protocol DefaultGiving: AnyObject {
  var anyDefaultValue: any Sendable { get }
}

/// The name of an accessor, as `#function` spells it where the accessor reads or writes a key.
@usableFromInline
final class AccessorName: Sendable {
  @usableFromInline let name: StaticString

  @usableFromInline
  init(_ name: StaticString) {
    self.name = name
  }

  var text: String { name.description }
}
