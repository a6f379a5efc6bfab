import Synchronization

/// A fake of a service's lifecycle, in a subtree: how a test makes a database that is down, or
/// a stop that hangs, without a type of its own (`MilieuTesting` makes them).
///
/// A faked service is a service of its own, told from the real one and from every other fake:
/// it is never read by a run of the real service, nor the real one by a run of the fake.
package struct ServiceLifecycleReplacement: Sendable {
  /// The service whose lifecycle is faked, as the subtree reads it.
  package let service: PartialKeyPath<EnvironmentValues> & Sendable
  /// The fake's name, as a test writes it: `startFails`.
  package let name: String
  /// Whether the service itself still starts and stops, the fake's lifecycle running after its
  /// start and before its stop: a stop that hangs, say, in front of the real one.
  package let keepsService: Bool
  /// Makes what starts and stops in the service's place.
  package let make: @Sendable () -> any LifecycleService
  /// Tells this fake from every other, in the process.
  package let id: UInt64

  private static let made = Atomic<UInt64>(0)

  package init(
    service: PartialKeyPath<EnvironmentValues> & Sendable, name: String,
    keepsService: Bool = false, make: @escaping @Sendable () -> any LifecycleService
  ) {
    self.service = service
    self.name = name
    self.keepsService = keepsService
    self.make = make
    self.id = Self.made.add(1, ordering: .relaxed).newValue
  }
}

extension EnvironmentValues {
  package static let serviceLifecycleReplacements = Entry<[ServiceLifecycleReplacement]>([])
  /// The fakes of services' lifecycles in this subtree; read only when services start.
  package var serviceLifecycleReplacements: [ServiceLifecycleReplacement] {
    get { self[Self.serviceLifecycleReplacements] }
    set { self[Self.serviceLifecycleReplacements] = newValue }
  }
}
