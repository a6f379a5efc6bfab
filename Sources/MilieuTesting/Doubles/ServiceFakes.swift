import Milieu

extension EnvironmentOverride {
  /// Makes a service's start throw, as a database that is down does: the service itself is
  /// never started.
  ///
  /// ```swift
  /// await #expect(throws: ServiceError.self) {
  ///   try await withRunningServices([\.notesService], .startFails(\.database, throwing: Down())) {}
  /// }
  /// ```
  ///
  /// A fake is a service of its own: a node above the test's that runs the real service does
  /// not lend it, and never reads the fake.
  ///
  /// - Parameters:
  ///   - service: The service, as the test's node reads it.
  ///   - error: What its start throws.
  /// - Returns: The override.
  public static func startFails(
    _ service: PartialKeyPath<EnvironmentValues> & Sendable, throwing error: any Error
  ) -> Self {
    faking(service, as: "startFails") { FakeLifecycle(starting: { throw error }) }
  }

  /// Makes a service's start wait until it is cancelled, as a database that never answers
  /// does: the service itself is never started.
  ///
  /// ```swift
  /// let start = Task { try await app.startServices([\.notesService]) }
  /// start.cancel()  // the program is told to stop while it starts
  /// ```
  ///
  /// - Parameter service: The service, as the test's node reads it.
  /// - Returns: The override.
  public static func startHangs(_ service: PartialKeyPath<EnvironmentValues> & Sendable) -> Self {
    faking(service, as: "startHangs") { FakeLifecycle(starting: FakeLifecycle.waitUntilCancelled) }
  }

  /// Makes a service's stop wait until it is cancelled, as a connection that never closes
  /// does: its stop timeout passes, and is reported. The service itself starts and stops as it
  /// always does, so the test runs with it: the stop that hangs comes before its own, which
  /// follows once the hanging one is cancelled.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// try await withRunningServices(
  ///   [\.notesService], .stopHangs(\.database), stopTimeout: .seconds(5), clock: clock
  /// ) { … }
  /// ```
  ///
  /// - Parameter service: The service, as the test's node reads it.
  /// - Returns: The override.
  public static func stopHangs(_ service: PartialKeyPath<EnvironmentValues> & Sendable) -> Self {
    faking(service, as: "stopHangs", keepingService: true) {
      FakeLifecycle(stopping: FakeLifecycle.waitUntilCancelled)
    }
  }

  private static func faking(
    _ service: PartialKeyPath<EnvironmentValues> & Sendable, as name: String,
    keepingService: Bool = false, with lifecycle: @escaping @Sendable () -> FakeLifecycle
  ) -> Self {
    // Made once, so that every node the override is applied to has the same fake.
    let fake = ServiceLifecycleReplacement(
      service: service, name: name, keepsService: keepingService, make: lifecycle)
    return .configure { values in values.serviceLifecycleReplacements.append(fake) }
  }
}

/// A lifecycle made of two closures.
struct FakeLifecycle: LifecycleService {
  var starting: @Sendable () async throws -> Void = {}
  var stopping: @Sendable () async throws -> Void = {}

  func start() async throws { try await starting() }
  func stop() async throws { try await stopping() }

  /// Returns when the task is cancelled, throwing `CancellationError`.
  static func waitUntilCancelled() async throws {
    let (never, continuation) = AsyncStream<Never>.makeStream()
    for await _ in never {}
    withExtendedLifetime(continuation) {}
    throw CancellationError()
  }
}
