// SwiftUI's environment names, which Milieu shares, for tests on platforms without SwiftUI: a
// file that imports this module and Milieu meets the clashes a file that imports SwiftUI and
// Milieu meets, and the spelling the README and "Coming from SwiftUI" give must compile there.

/// SwiftUI's `EnvironmentKey`.
public protocol EnvironmentKey {
  associatedtype Value
  static var defaultValue: Value { get }
}

/// SwiftUI's `EnvironmentValues`, with a value of its own.
public struct EnvironmentValues {
  /// Values in which every key reads as its default.
  public init() {}

  /// The value of a key: its default.
  public subscript<Key: EnvironmentKey>(key: Key.Type) -> Key.Value {
    Key.defaultValue
  }

  /// One of SwiftUI's own values.
  public var colorScheme: String { "light" }
}

/// SwiftUI's `Environment` property wrapper.
@propertyWrapper
public struct Environment<Value> {
  private let keyPath: KeyPath<EnvironmentValues, Value>

  /// Reads the value at a key path.
  public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    self.keyPath = keyPath
  }

  /// The value, read from default values.
  public var wrappedValue: Value { EnvironmentValues()[keyPath: keyPath] }
}
