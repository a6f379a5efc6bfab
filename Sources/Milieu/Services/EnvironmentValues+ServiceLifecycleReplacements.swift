/// A lifecycle that stands in for a service's own, in a subtree: how a test makes a database
/// that is down, or a stop that hangs, without a type of its own (`MilieuTesting` makes them).
package struct ServiceLifecycleReplacement: Sendable {
  /// The service whose lifecycle is replaced, as the subtree reads it.
  package let service: PartialKeyPath<EnvironmentValues> & Sendable
  /// What starts and stops in its place, given the service's own lifecycle (`nil` for a value
  /// that has none), so that a replacement may start or stop the service itself.
  package let replace: @Sendable ((any LifecycleService)?) -> any LifecycleService

  package init(
    service: PartialKeyPath<EnvironmentValues> & Sendable,
    replace: @escaping @Sendable ((any LifecycleService)?) -> any LifecycleService
  ) {
    self.service = service
    self.replace = replace
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
