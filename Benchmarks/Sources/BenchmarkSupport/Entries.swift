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

// What a server's request carries (the user and the request's identifier, set per request) and
// what its app shares (the region), for the server-shaped cases.
extension EnvironmentValues {
  /// The authenticated user of a request.
  public static let user = Entry("anonymous")
  /// The authenticated user, read through ``user``.
  public var user: String {
    get { self[Self.user] }
    set { self[Self.user] = newValue }
  }

  /// The request's identifier.
  public static let requestID = Entry(0)
  /// The request's identifier, read through ``requestID``.
  public var requestID: Int {
    get { self[Self.requestID] }
    set { self[Self.requestID] = newValue }
  }

  /// The region the app serves.
  public static let region = Entry("eu-west")
  /// The region, read through ``region``.
  public var region: String {
    get { self[Self.region] }
    set { self[Self.region] = newValue }
  }
}

extension DependencyValues {
  /// The swift-dependencies counterpart of ``Milieu/EnvironmentValues/user``.
  public var user: String {
    get { self[UserDependencyKey.self] }
    set { self[UserDependencyKey.self] = newValue }
  }
  /// The swift-dependencies counterpart of ``Milieu/EnvironmentValues/requestID``.
  public var requestID: Int {
    get { self[RequestIDDependencyKey.self] }
    set { self[RequestIDDependencyKey.self] = newValue }
  }
  /// The swift-dependencies counterpart of ``Milieu/EnvironmentValues/region``.
  public var region: String {
    get { self[RegionDependencyKey.self] }
    set { self[RegionDependencyKey.self] = newValue }
  }
  /// The swift-dependencies counterpart of ``Milieu/EnvironmentValues/greeter``.
  public var greeter: Greeter {
    get { self[GreeterDependencyKey.self] }
    set { self[GreeterDependencyKey.self] = newValue }
  }
}

/// The key behind ``Dependencies/DependencyValues/user``.
public enum UserDependencyKey: DependencyKey {
  /// Nobody, outside a request.
  public static let liveValue = "anonymous"
}

/// The key behind ``Dependencies/DependencyValues/requestID``.
public enum RequestIDDependencyKey: DependencyKey {
  /// No request.
  public static let liveValue = 0
}

/// The key behind ``Dependencies/DependencyValues/region``.
public enum RegionDependencyKey: DependencyKey {
  /// The region the app serves.
  public static let liveValue = "eu-west"
}

/// The key behind ``Dependencies/DependencyValues/greeter``.
public enum GreeterDependencyKey: DependencyKey {
  /// The app's greeter.
  public static let liveValue = Greeter("Hi there")
}

// Derived values: a service built from three of the values above, as an application's
// repository is built from its clients, and a value whose build does next to nothing, so that
// its first read costs what the derived machinery costs.
extension EnvironmentValues {
  /// The service as a plain entry, built by hand and set on a node: the anchor of a derived
  /// read, with a value of the same type.
  public static let plainRepository = Entry(
    Repository(retries: 3, greeter: Greeter("Hello"), region: "eu-west"))

  /// The plain service, read through ``plainRepository``.
  public var plainRepository: Repository {
    get { self[Self.plainRepository] }
    set { self[Self.plainRepository] = newValue }
  }

  /// The same service derived from the values it needs, one per set of inputs.
  public static let repository = Derived { values in
    Repository(retries: values.retries, greeter: values.greeter, region: values.region)
  }

  /// The derived service, read through ``repository``.
  public var repository: Repository { self[Self.repository] }

  /// A derived value whose build only copies the one value it reads into a small struct.
  public static let retrySettings = Derived { values in RetrySettings(retries: values.retries) }

  /// The derived settings, read through ``retrySettings``.
  public var retrySettings: RetrySettings { self[Self.retrySettings] }
}

/// A service built from three environment values.
public final class Repository: Sendable {
  /// How many times it retries.
  public let retries: Int
  /// The greeter it uses.
  public let greeter: Greeter
  /// The region it serves.
  public let region: String

  /// Creates the service from the values it needs.
  public init(retries: Int, greeter: Greeter, region: String) {
    self.retries = retries
    self.greeter = greeter
    self.region = region
  }
}

/// A small value derived from one environment value, at next to no cost.
public struct RetrySettings: Sendable {
  /// How many times to retry.
  public let retries: Int

  /// Creates the settings.
  public init(retries: Int) {
    self.retries = retries
  }
}
