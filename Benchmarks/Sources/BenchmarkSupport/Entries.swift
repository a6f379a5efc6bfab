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

  /// The same kind of value declared in the SwiftUI form, with a key type.
  public var retryLimit: Int {
    get { self[RetryLimitKey.self] }
    set { self[RetryLimitKey.self] = newValue }
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
