import Dependencies
import Milieu

// The values the suites read, declared the way an application declares its own: in a module of
// its own, outside Milieu and outside the code that reads them.

extension EnvironmentValues {
  /// The `@Entry`-style entry every Milieu benchmark reads and overrides.
  public static let retries = Entry(3)

  /// How many times to retry, read through ``retries``.
  public var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }

  /// A service: a class instance, which an `@Environment` wrapper caches under its lock rather
  /// than in atomics, because reading it retains it.
  public static let greeter = Entry(Greeter("Hello"))

  /// The greeter, read through ``greeter``.
  public var greeter: Greeter {
    get { self[Self.greeter] }
    set { self[Self.greeter] = newValue }
  }

  /// The same kind of value declared in the SwiftUI form, with a key type.
  public var retryLimit: Int {
    get { self[RetryLimitKey.self] }
    set { self[RetryLimitKey.self] = newValue }
  }
}

/// A service the environment carries, as an application's would be.
public final class Greeter: Sendable {
  /// What the greeter says.
  public let greeting: String

  /// Creates a greeter.
  public init(_ greeting: String) {
    self.greeting = greeting
  }
}

/// The key type behind ``Milieu/EnvironmentValues/retryLimit``.
public enum RetryLimitKey: EnvironmentKey {
  /// Three retries unless a node says otherwise.
  public static let defaultValue = 3
}

extension DependencyValues {
  /// The swift-dependencies counterpart of ``Milieu/EnvironmentValues/retries``.
  public var retries: Int {
    get { self[RetriesDependencyKey.self] }
    set { self[RetriesDependencyKey.self] = newValue }
  }
}

/// The key behind ``Dependencies/DependencyValues/retries``.
public enum RetriesDependencyKey: DependencyKey {
  /// The value read outside any `withDependencies` override.
  public static let liveValue = 3
}
