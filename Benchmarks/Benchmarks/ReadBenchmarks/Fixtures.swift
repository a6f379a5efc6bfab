import BenchmarkSupport
import Dependencies
import Milieu
import Swinject

/// The floor: a value kept in a stored property of a final class.
///
/// The property is a `var` so that the optimizer cannot hoist its load out of a loop that calls
/// an opaque function: it must read it again on every iteration, as the other cases must.
final class StoredRetries {
  var retries = 5
}

/// The floor for a class instance: one kept in a stored property of a final class. Handing it on
/// retains it and releases it after, as reading it from the environment does.
final class StoredGreeter {
  var greeter = Greeter("Hi there")
}

extension EnvironmentValues {
  /// Plain values with both benchmark values set.
  ///
  /// Captured by a benchmark closure as a constant, they are read without retaining anything;
  /// the accessor is an opaque call into another module, so each read happens afresh.
  static func withRetriesSet() -> EnvironmentValues {
    var values = EnvironmentValues()
    values.retries = 5
    values.retryLimit = 5
    return values
  }
}

/// A component that reads its value with `@Environment`, as application code does: a struct,
/// the way SwiftUI views hold their environment.
///
/// Held in a constant, its wrapper is read as it is, so the read costs what Milieu's read path
/// costs. (A class keeps its wrapper in a stored `var`, which costs the class more on every read;
/// ``EnvironmentClassService`` measures that.) `Sendable`, so the thread-scaling cases can hand it
/// to two threads: its wrapper is `Sendable`.
struct EnvironmentService: Sendable {
  @Environment(\.retries) var retries

  /// A service created in a node `depth` levels below the root that sets the value it reads.
  ///
  /// The chain is kept alive by the service: a child retains its parent, and the service's
  /// wrapper retains the node it was bound to.
  static func bound(atDepth depth: Int) -> EnvironmentService {
    EnvironmentNode.chain(depth: depth).withCurrent { EnvironmentService() }
  }

  /// Two services, each with its own `@Environment` wrapper, created in the same node one level
  /// below the root that sets the value they read.
  static func pair() -> (EnvironmentService, EnvironmentService) {
    EnvironmentNode.chain(depth: 1).withCurrent { (EnvironmentService(), EnvironmentService()) }
  }
}

/// A component that reads a service, a class instance: the wrapper caches it under its spin lock
/// instead of in two atomics, since reading a reference retains it.
struct EnvironmentGreeterService {
  @Environment(\.greeter) var greeter

  /// A service created one level below the root that sets the value it reads.
  static func bound() -> EnvironmentGreeterService {
    EnvironmentNode.chain(depth: 1).withCurrent { EnvironmentGreeterService() }
  }
}

/// The same component as a final class, to show what the client's own class costs.
///
/// A property wrapper's storage in a class is a stored `var`, and the read path makes calls the
/// optimizer cannot see into, any of which might reassign that `var`. So an optimized read
/// retains the wrapper's reader before the read and releases it after; a debug build also checks
/// the access at run time (`swift_beginAccess`). Both are the client's class's cost, not Milieu's:
/// a struct, or `let retries = Environment(\.retries)` read through `wrappedValue`, does without
/// them.
final class EnvironmentClassService {
  @Environment(\.retries) var retries

  /// A service created in a node `depth` levels below the root that sets the value it reads.
  static func bound(atDepth depth: Int) -> EnvironmentClassService {
    EnvironmentNode.chain(depth: depth).withCurrent { EnvironmentClassService() }
  }
}

extension EnvironmentNode {
  /// A node `depth` levels below a root that sets the value the services read.
  ///
  /// Only the returned node is kept: each child retains its parent, so the chain lives as long as
  /// the node, and a wrapper bound to the node retains it.
  static func chain(depth: Int) -> EnvironmentNode {
    let root = EnvironmentNode("read-root")
    root.update {
      $0.retries = 5
      $0.greeter = Greeter("Hi there")
    }
    var node = root
    for _ in 0..<depth { node = node.child() }
    return node
  }
}

extension EnvironmentNode {
  /// A node one level below a root that sets the plain service and the derived service's
  /// inputs, with the derived service built there already.
  static func derivedChain() -> EnvironmentNode {
    let root = EnvironmentNode("derived-root")
    root.update {
      $0.retries = 5
      $0.greeter = Greeter("Hi there")
      $0.region = "us-east"
      $0.plainRepository = Repository(retries: 5, greeter: Greeter("Hi there"), region: "us-east")
    }
    let node = root.child()
    _ = node[\.repository]
    return node
  }
}

/// A component that reads a service held by a plain entry.
struct PlainRepositoryService {
  @Environment(\.plainRepository) var repository

  /// A service created in `node`, whose wrapper has read the value once.
  static func bound(to node: EnvironmentNode) -> PlainRepositoryService {
    let service = node.withCurrent { PlainRepositoryService() }
    _ = service.repository
    return service
  }
}

/// A component that reads the same kind of service, derived.
struct DerivedRepositoryService {
  @Environment(\.repository) var repository

  /// A service created in `node`, whose wrapper has read the value once.
  static func bound(to node: EnvironmentNode) -> DerivedRepositoryService {
    let service = node.withCurrent { DerivedRepositoryService() }
    _ = service.repository
    return service
  }
}

/// The same component written with swift-dependencies.
final class DependencyService {
  @Dependency(\.retries) var retries

  /// A service created where the value is overridden, as the Milieu services are.
  static func overridden() -> DependencyService {
    withDependencies {
      $0.retries = 5
    } operation: {
      DependencyService()
    }
  }
}

/// The value Swinject hands out.
final class RetryPolicy {
  let retries = 5
}

/// Swinject containers that resolve ``RetryPolicy`` in the container scope.
enum SwinjectFixture {
  /// A root container with the registration.
  static func root() -> Container {
    let container = Container()
    container.register(RetryPolicy.self) { _ in RetryPolicy() }.inObjectScope(.container)
    return container
  }

  /// A chain of `depth` child containers below `parent`, none with a registration of its own.
  static func child(of parent: Container, depth: Int) -> Container {
    var container = parent
    for _ in 0..<depth { container = Container(parent: container) }
    return container
  }
}
