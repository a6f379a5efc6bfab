/// A lifecycle that stands in for a service's own, in a subtree: how a test makes a database
/// that is down, or a stop that hangs, without a type of its own (`MilieuTesting` makes them).
package struct ServiceLifecycleReplacement: Sendable {
  /// The service whose lifecycle is replaced, as the subtree reads it.
  package let service: PartialKeyPath<EnvironmentValues> & Sendable
  /// What starts and stops in its place.
  package let lifecycle: any LifecycleService

  package init(
    service: PartialKeyPath<EnvironmentValues> & Sendable, lifecycle: any LifecycleService
  ) {
    self.service = service
    self.lifecycle = lifecycle
  }
}

extension EnvironmentValues {
  package static let serviceLifecycleReplacements = Entry<[ServiceLifecycleReplacement]>([])
  /// The lifecycles that stand in for services' own in this subtree; read only when services
  /// start.
  package var serviceLifecycleReplacements: [ServiceLifecycleReplacement] {
    get { self[Self.serviceLifecycleReplacements] }
    set { self[Self.serviceLifecycleReplacements] = newValue }
  }
}
