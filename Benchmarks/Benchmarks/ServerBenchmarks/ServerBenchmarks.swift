import Benchmark
import BenchmarkSupport
import Dependencies
import Dispatch
import Foundation
import Milieu

// Suite 6, Server: requests shaped like a server's. Each request is a child of one shared app
// node; its user and identifier are set on it (two `set`s, as a middleware does after
// authenticating); three services are made in it and each reads five `@Environment` values
// twice; then the request's node is dropped.
//
// Anchors from the same run: the same request with the two values given when the child is
// made, and the same request written with swift-dependencies' `withDependencies`. The thread
// cases run the Milieu request on one thread, then on two threads sharing the app node, with
// the CPU time of the threads beside the wall clock.

let benchmarks: @Sendable () -> Void = {
  let configuration = Benchmark.Configuration(
    metrics: SuiteMetrics.timing, scalingFactor: .kilo, maxDuration: .seconds(2),
    maxIterations: 10_000)
  let app = ServerApp()

  Benchmark("Server: request, two sets on its node", configuration: configuration) { benchmark in
    for request in benchmark.scaledIterations { blackHole(app.handleSettingValues(request)) }
  }
  Benchmark("Server: request, values given at creation", configuration: configuration) {
    benchmark in
    for request in benchmark.scaledIterations { blackHole(app.handleWithValuesAtCreation(request)) }
  }
  Benchmark("Server: request, withDependencies (swift-dependencies)", configuration: configuration)
  { benchmark in
    for request in benchmark.scaledIterations { blackHole(app.handleWithDependencies(request)) }
  }

  // Each sample serves 10,000 requests in all, split evenly between the threads.
  let threaded = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, ThreadWork.cpuTime], timeUnits: .microseconds,
    scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 1_000)
  for threads in [1, 2] {
    let spelled = threads == 1 ? "one thread" : "two threads"
    Benchmark("Server: 10,000 requests with two sets, on \(spelled)", configuration: threaded) {
      benchmark in
      ThreadWork.run(benchmark, threads: threads) { thread in
        let share = 10_000 / threads
        for request in (thread * share)..<((thread + 1) * share) {
          blackHole(app.handleSettingValues(request))
        }
      }
    }
  }
  // The control: the same two threads, each with an app node of its own, share nothing. It
  // shows how much of two cores the machine gives at the moment.
  let apps = [ServerApp(), ServerApp()]
  Benchmark(
    "Server: 10,000 requests with two sets, on two threads, an app each",
    configuration: threaded
  ) { benchmark in
    ThreadWork.run(benchmark, threads: 2) { thread in
      for request in 0..<5_000 { blackHole(apps[thread].handleSettingValues(request)) }
    }
  }
}

/// The app: a node holding what every request shares, and the users requests come from.
final class ServerApp: Sendable {
  let node = EnvironmentNode("app")
  let users = (0..<64).map { "user-\($0)" }

  init() {
    node.update {
      $0.retries = 5
      $0.greeter = Greeter("Hi there")
      $0.region = "us-east"
    }
  }

  /// A request whose middleware sets the user and identifier on the request's node.
  func handleSettingValues(_ request: Int) -> Int {
    let node = node.child("request")
    node.set(\.user, to: users[request & 63])
    node.set(\.requestID, to: request)
    return node.withCurrent { Self.serve() }
  }

  /// The same request with the user and identifier given as the node is made.
  func handleWithValuesAtCreation(_ request: Int) -> Int {
    let node = node.child("request") {
      $0.user = users[request & 63]
      $0.requestID = request
    }
    return node.withCurrent { Self.serve() }
  }

  /// The same request with swift-dependencies.
  func handleWithDependencies(_ request: Int) -> Int {
    withDependencies {
      $0.retries = 5
      $0.greeter = Greeter("Hi there")
      $0.region = "us-east"
      $0.user = users[request & 63]
      $0.requestID = request
    } operation: {
      (0..<3).reduce(0) { sum, _ in sum &+ DependencyRequestService().work() }
    }
  }

  /// Three services made in the current node, each reading its values twice.
  static func serve() -> Int {
    (0..<3).reduce(0) { sum, _ in sum &+ RequestService().work() }
  }
}

/// What a service of the request reads, and the work it does with it: each value twice.
protocol RequestReading {
  var user: String { get }
  var requestID: Int { get }
  var retries: Int { get }
  var greeter: Greeter { get }
  var region: String { get }
}

extension RequestReading {
  func work() -> Int {
    var sum = 0
    for _ in 0..<2 {
      sum &+= user.utf8.count &+ requestID &+ retries &+ greeter.greeting.utf8.count
      sum &+= region.utf8.count
    }
    return sum
  }
}

/// A service of the request, reading what the request and the app provide.
struct RequestService: RequestReading {
  @Environment(\.user) var user
  @Environment(\.requestID) var requestID
  @Environment(\.retries) var retries
  @Environment(\.greeter) var greeter
  @Environment(\.region) var region
}

/// The same service with swift-dependencies.
struct DependencyRequestService: RequestReading {
  @Dependency(\.user) var user
  @Dependency(\.requestID) var requestID
  @Dependency(\.retries) var retries
  @Dependency(\.greeter) var greeter
  @Dependency(\.region) var region
}
