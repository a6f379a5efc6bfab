import Dependencies
import Milieu

// A request shaped like a server's: a child of the app node with one override (the user), three
// services made under it, each with five `@Environment` wrappers of values that are not one
// word of plain bits (strings, a class, a two-word struct), every value read twice, then the
// services and the node dropped. The anchor is the same request with swift-dependencies: a
// `withDependencies` override, three services with five `@Dependency` properties each.

struct RequestLimits: Sendable {
  var maximumBodySize = 16_384
  var maximumNotes = 1_000
}

final class RequestGreeter: Sendable {
  let greeting: String
  init(_ greeting: String) { self.greeting = greeting }
}

extension EnvironmentValues {
  static let shapedUser = Entry("anonymous")
  var shapedUser: String {
    get { self[Self.shapedUser] }
    set { self[Self.shapedUser] = newValue }
  }
  static let shapedRegion = Entry("eu-west")
  var shapedRegion: String {
    get { self[Self.shapedRegion] }
    set { self[Self.shapedRegion] = newValue }
  }
  static let shapedLabel = Entry("notes")
  var shapedLabel: String {
    get { self[Self.shapedLabel] }
    set { self[Self.shapedLabel] = newValue }
  }
  static let shapedGreeter = Entry(RequestGreeter("Hello"))
  var shapedGreeter: RequestGreeter {
    get { self[Self.shapedGreeter] }
    set { self[Self.shapedGreeter] = newValue }
  }
  static let shapedLimits = Entry(RequestLimits())
  var shapedLimits: RequestLimits {
    get { self[Self.shapedLimits] }
    set { self[Self.shapedLimits] = newValue }
  }
}

private enum ShapedUserKey: DependencyKey { static let liveValue = "anonymous" }
private enum ShapedRegionKey: DependencyKey { static let liveValue = "eu-west" }
private enum ShapedLabelKey: DependencyKey { static let liveValue = "notes" }
private enum ShapedGreeterKey: DependencyKey { static let liveValue = RequestGreeter("Hello") }
private enum ShapedLimitsKey: DependencyKey { static let liveValue = RequestLimits() }

extension DependencyValues {
  var shapedUser: String {
    get { self[ShapedUserKey.self] }
    set { self[ShapedUserKey.self] = newValue }
  }
  var shapedRegion: String {
    get { self[ShapedRegionKey.self] }
    set { self[ShapedRegionKey.self] = newValue }
  }
  var shapedLabel: String {
    get { self[ShapedLabelKey.self] }
    set { self[ShapedLabelKey.self] = newValue }
  }
  var shapedGreeter: RequestGreeter {
    get { self[ShapedGreeterKey.self] }
    set { self[ShapedGreeterKey.self] = newValue }
  }
  var shapedLimits: RequestLimits {
    get { self[ShapedLimitsKey.self] }
    set { self[ShapedLimitsKey.self] = newValue }
  }
}

/// What a service does with its five values: reads each twice.
protocol ShapedReading {
  var user: String { get }
  var region: String { get }
  var label: String { get }
  var greeter: RequestGreeter { get }
  var limits: RequestLimits { get }
}

extension ShapedReading {
  @inline(never)
  func work() -> Int {
    var sum = 0
    for _ in 0..<2 {
      sum &+= user.utf8.count &+ region.utf8.count &+ label.utf8.count
      sum &+= greeter.greeting.utf8.count &+ limits.maximumBodySize
    }
    return sum
  }
}

struct ShapedService: ShapedReading {
  @Environment(\.shapedUser) var user
  @Environment(\.shapedRegion) var region
  @Environment(\.shapedLabel) var label
  @Environment(\.shapedGreeter) var greeter
  @Environment(\.shapedLimits) var limits
}

struct ShapedDependencyService: ShapedReading {
  @Dependency(\.shapedUser) var user
  @Dependency(\.shapedRegion) var region
  @Dependency(\.shapedLabel) var label
  @Dependency(\.shapedGreeter) var greeter
  @Dependency(\.shapedLimits) var limits
}

enum ServerShapedRequest {
  static let users = (0..<64).map { "user-\($0)" }

  static let all: [CountedCase] = [
    CountedCase(
      "server-shaped request: a child, three services × five @Environment wrappers, read twice"
    ) { iterations in
      let app = EnvironmentNode("app")
      app.update {
        $0.shapedRegion = "us-east"
        $0.shapedGreeter = RequestGreeter("Hi there")
      }
      for iteration in 0..<iterations {
        let request = app.child("request") { $0.shapedUser = users[iteration & 63] }
        blackHole(
          request.withCurrent {
            (0..<3).reduce(0) { sum, _ in sum &+ ShapedService().work() }
          })
      }
    },
    CountedCase(
      "anchor: the same request with withDependencies and @Dependency (swift-dependencies)",
      isAnchor: true
    ) { iterations in
      for iteration in 0..<iterations {
        blackHole(
          withDependencies {
            $0.shapedRegion = "us-east"
            $0.shapedGreeter = RequestGreeter("Hi there")
            $0.shapedUser = users[iteration & 63]
          } operation: {
            (0..<3).reduce(0) { sum, _ in sum &+ ShapedDependencyService().work() }
          })
      }
    },
    CountedCase(
      "anchor: withDependencies override, @Dependency read (swift-dependencies)", isAnchor: true
    ) { iterations in
      for iteration in 0..<iterations {
        blackHole(
          withDependencies {
            $0.shapedUser = users[iteration & 63]
          } operation: {
            @Dependency(\.shapedUser) var user
            return user
          })
      }
    },
  ]
}
