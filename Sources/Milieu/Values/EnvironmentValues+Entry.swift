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
