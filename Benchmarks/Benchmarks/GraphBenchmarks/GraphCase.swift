import BenchmarkSupport
import Dependencies
import Milieu
import Swinject

/// A service of the graph, built from the three values every feature provides.
final class GraphService: Sendable {
  let index: Int
  let endpoint: String
  let logLevel: Int
  let timeout: Int

  init(index: Int, endpoint: String, logLevel: Int, timeout: Int) {
    self.index = index
    self.endpoint = endpoint
    self.logLevel = logLevel
    self.timeout = timeout
  }
}

/// The three values a feature sees: the app's, with one of them overridden.
struct FeatureInputs: Sendable {
  var endpoint = "https://api.example.com"
  var logLevel = 2
  var timeout = 30

  /// The values of feature `feature`, which overrides the first, second or third in turn.
  static let all: [FeatureInputs] = (0..<GraphCase.features).map { feature in
    var inputs = FeatureInputs()
    switch feature % 3 {
    case 0: inputs.endpoint = "https://feature-\(feature).example.com"
    case 1: inputs.logLevel = feature
    default: inputs.timeout = 30 + feature
    }
    return inputs
  }

  /// The app's values.
  static let app = FeatureInputs()
}

/// One graph, built and read once; each returns the sum of the services' indices, so that
/// every service is built and read.
enum GraphCase {
  static let features = 10
  static let services = 100

  // MARK: By hand

  /// Every service made by hand from the feature's values.
  static func byHand() -> Int {
    var sum = 0
    for inputs in FeatureInputs.all {
      let built = (0..<services).map { index in
        GraphService(
          index: index, endpoint: inputs.endpoint, logLevel: inputs.logLevel,
          timeout: inputs.timeout)
      }
      for service in built { sum &+= service.index }
    }
    return sum
  }

  // MARK: Milieu

  /// An app node that sets the three values, a child per feature that overrides one, and each
  /// derived service read once from the feature's values, which builds it there.
  static func milieu() -> Int {
    let app = EnvironmentNode("graph-app")
    app.update {
      $0.graphEndpoint = FeatureInputs.app.endpoint
      $0.graphLogLevel = FeatureInputs.app.logLevel
      $0.graphTimeout = FeatureInputs.app.timeout
    }
    var sum = 0
    for (feature, inputs) in FeatureInputs.all.enumerated() {
      let node = app.child("feature") { values in
        switch feature % 3 {
        case 0: values.graphEndpoint = inputs.endpoint
        case 1: values.graphLogLevel = inputs.logLevel
        default: values.graphTimeout = inputs.timeout
        }
      }
      let values = node.values
      for service in derivedServices { sum &+= values[service].index }
    }
    return sum
  }

  // MARK: swift-dependencies

  /// Under the app's values, each feature's override; under it, each service built from three
  /// `@Dependency` reads and installed, as swift-dependencies needs a service to follow an
  /// override of what it is built from; then each read once with `@Dependency`.
  static func swiftDependencies() -> Int {
    withDependencies {
      $0.graphEndpoint = FeatureInputs.app.endpoint
      $0.graphLogLevel = FeatureInputs.app.logLevel
      $0.graphTimeout = FeatureInputs.app.timeout
    } operation: {
      var sum = 0
      for (feature, inputs) in FeatureInputs.all.enumerated() {
        sum &+= withDependencies { values in
          switch feature % 3 {
          case 0: values.graphEndpoint = inputs.endpoint
          case 1: values.graphLogLevel = inputs.logLevel
          default: values.graphTimeout = inputs.timeout
          }
        } operation: {
          withDependencies { values in
            for key in dependencyServices { key.install(&values) }
          } operation: {
            dependencyServices.reduce(0) { sum, key in sum &+ key.read().index }
          }
        }
      }
      return sum
    }
  }

  // MARK: Swinject

  /// A container per feature with its three values and the hundred services registered, each
  /// in the container scope, then each resolved once.
  static func swinject() -> Int {
    var sum = 0
    for inputs in FeatureInputs.all {
      let container = Container()
      container.register(String.self, name: "endpoint") { _ in inputs.endpoint }
      container.register(Int.self, name: "logLevel") { _ in inputs.logLevel }
      container.register(Int.self, name: "timeout") { _ in inputs.timeout }
      for (index, name) in serviceNames.enumerated() {
        container.register(GraphService.self, name: name) { resolver in
          GraphService(
            index: index, endpoint: resolver.required(String.self, name: "endpoint"),
            logLevel: resolver.required(Int.self, name: "logLevel"),
            timeout: resolver.required(Int.self, name: "timeout"))
        }
        .inObjectScope(.container)
      }
      for name in serviceNames { sum &+= container.required(GraphService.self, name: name).index }
    }
    return sum
  }

  /// The names the Swinject services are registered under.
  static let serviceNames = (0..<services).map { "service-\($0)" }
}

extension Resolver {
  /// The registered value, which every case registers before it resolves it.
  func required<Service>(_ type: Service.Type, name: String) -> Service {
    guard let service = resolve(type, name: name) else {
      preconditionFailure("\(type) named \(name) is not registered")
    }
    return service
  }
}

// MARK: - Milieu's values and services

extension EnvironmentValues {
  static let graphEndpoint = Entry("")
  var graphEndpoint: String {
    get { self[Self.graphEndpoint] }
    set { self[Self.graphEndpoint] = newValue }
  }

  static let graphLogLevel = Entry(0)
  var graphLogLevel: Int {
    get { self[Self.graphLogLevel] }
    set { self[Self.graphLogLevel] = newValue }
  }

  static let graphTimeout = Entry(0)
  var graphTimeout: Int {
    get { self[Self.graphTimeout] }
    set { self[Self.graphTimeout] = newValue }
  }
}

/// The hundred services, each a derived value read through `values[service]`: a hundred
/// `static let`s with accessors would do the same, at more length.
let derivedServices: [EnvironmentValues.Derived<GraphService>] = (0..<GraphCase.services).map {
  index in
  EnvironmentValues.Derived { values in
    GraphService(
      index: index, endpoint: values.graphEndpoint, logLevel: values.graphLogLevel,
      timeout: values.graphTimeout)
  }
}

// MARK: - swift-dependencies' values and services

extension DependencyValues {
  var graphEndpoint: String {
    get { self[GraphEndpointKey.self] }
    set { self[GraphEndpointKey.self] = newValue }
  }
  var graphLogLevel: Int {
    get { self[GraphLogLevelKey.self] }
    set { self[GraphLogLevelKey.self] = newValue }
  }
  var graphTimeout: Int {
    get { self[GraphTimeoutKey.self] }
    set { self[GraphTimeoutKey.self] = newValue }
  }
}

enum GraphEndpointKey: DependencyKey {
  static let liveValue = ""
}

enum GraphLogLevelKey: DependencyKey {
  static let liveValue = 0
}

enum GraphTimeoutKey: DependencyKey {
  static let liveValue = 0
}

/// A decimal digit as a type, so that a hundred distinct dependency keys are one generic type
/// over two digits rather than a hundred declarations.
protocol GraphDigit: SendableMetatype {
  static var value: Int { get }
}

enum Digit0: GraphDigit { static var value: Int { 0 } }
enum Digit1: GraphDigit { static var value: Int { 1 } }
enum Digit2: GraphDigit { static var value: Int { 2 } }
enum Digit3: GraphDigit { static var value: Int { 3 } }
enum Digit4: GraphDigit { static var value: Int { 4 } }
enum Digit5: GraphDigit { static var value: Int { 5 } }
enum Digit6: GraphDigit { static var value: Int { 6 } }
enum Digit7: GraphDigit { static var value: Int { 7 } }
enum Digit8: GraphDigit { static var value: Int { 8 } }
enum Digit9: GraphDigit { static var value: Int { 9 } }

/// Service number `Tens` `Ones`: a key of its own, whose value is built from three
/// `@Dependency` reads.
enum GraphServiceKey<Tens: GraphDigit, Ones: GraphDigit>: DependencyKey {
  static var index: Int { Tens.value * 10 + Ones.value }

  /// The service built from the values the current scope sees.
  static func build() -> GraphService {
    @Dependency(\.graphEndpoint) var endpoint
    @Dependency(\.graphLogLevel) var logLevel
    @Dependency(\.graphTimeout) var timeout
    return GraphService(index: index, endpoint: endpoint, logLevel: logLevel, timeout: timeout)
  }

  static var liveValue: GraphService { build() }
}

/// One service key, with what installs its service in a scope and reads it there.
struct DependencyService: Sendable {
  let install: @Sendable (inout DependencyValues) -> Void
  let read: @Sendable () -> GraphService

  init<Tens: GraphDigit, Ones: GraphDigit>(_: GraphServiceKey<Tens, Ones>.Type) {
    install = { $0[GraphServiceKey<Tens, Ones>.self] = GraphServiceKey<Tens, Ones>.build() }
    read = {
      @Dependency(GraphServiceKey<Tens, Ones>.self) var service
      return service
    }
  }

  /// The ten keys whose tens digit is `Tens`.
  static func decade<Tens: GraphDigit>(_: Tens.Type) -> [DependencyService] {
    [
      .init(GraphServiceKey<Tens, Digit0>.self), .init(GraphServiceKey<Tens, Digit1>.self),
      .init(GraphServiceKey<Tens, Digit2>.self), .init(GraphServiceKey<Tens, Digit3>.self),
      .init(GraphServiceKey<Tens, Digit4>.self), .init(GraphServiceKey<Tens, Digit5>.self),
      .init(GraphServiceKey<Tens, Digit6>.self), .init(GraphServiceKey<Tens, Digit7>.self),
      .init(GraphServiceKey<Tens, Digit8>.self), .init(GraphServiceKey<Tens, Digit9>.self),
    ]
  }
}

/// The hundred swift-dependencies services.
let dependencyServices: [DependencyService] =
  DependencyService.decade(Digit0.self) + DependencyService.decade(Digit1.self)
  + DependencyService.decade(Digit2.self) + DependencyService.decade(Digit3.self)
  + DependencyService.decade(Digit4.self) + DependencyService.decade(Digit5.self)
  + DependencyService.decade(Digit6.self) + DependencyService.decade(Digit7.self)
  + DependencyService.decade(Digit8.self) + DependencyService.decade(Digit9.self)
