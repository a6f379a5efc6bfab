/// One problem with a service of a node: a start or a stop that failed, or a problem in the
/// graph found before anything started.
///
/// Every failure names its service and the path that leads to it, from a service the program
/// named down through what each one read:
///
/// ```swift
/// do {
///   let running = try await app.startServices([\.notesService])
///   // …
/// } catch {
///   for failure in error.failures {
///     print(failure.path.joined(separator: " → "), failure.reason)
///   }
///   // notesService → repository → database   start failed: DatabaseDown()
/// }
/// ```
public struct ServiceFailure: Sendable, CustomStringConvertible {
  /// A `stopTimeout` that is not positive, if `timeout` is one.
  static func checking(stopTimeout timeout: Duration) -> [ServiceFailure] {
    guard timeout <= .zero else { return [] }
    return [
      ServiceFailure(
        service: "stopTimeout", path: [],
        reason: .invalidArgument(
          "stopTimeout",
          problem: "stopTimeout is \(timeout), but every stop takes some time: pass how long each "
            + "service's stop may take, a positive duration such as .seconds(30)."))
    ]
  }

  /// What went wrong.
  public enum Reason: Sendable, CustomStringConvertible {
    /// The service's ``LifecycleService/start()`` threw this error: its own, even when it threw
    /// it because its start was cancelled.
    case startFailed(any Error)
    /// The start was cancelled before the service had started: the program was told to stop,
    /// and its ``LifecycleService/start()`` threw `CancellationError`, or had not begun.
    case startCancelled
    /// The service's ``LifecycleService/stop()`` threw.
    case stopFailed(any Error)
    /// The service's ``LifecycleService/stop()`` did not return within the timeout; Milieu
    /// cancelled it and went on.
    case stopTimedOut(after: Duration)
    /// Building the service threw this error.
    case buildFailed(any Error)
    /// A value the service is built from, which the string names, could not be built: its
    /// build threw this error, so the service would be built on that value's fallback.
    case missingInput(String, any Error)
    /// Building the service reads itself, through the values the string names: the issue
    /// Milieu reported.
    case cycle(String)
    /// Building the service nests derived values deeper than Milieu builds them, through the
    /// values the string names: the issue Milieu reported.
    case depthLimit(String)
    /// Reading the service reported another issue, which the string says.
    case issue(String)
    /// The service has a lifecycle and is built from defaults alone, so a test would start
    /// the one the program uses; see
    /// ``EnvironmentNode/checkServices(_:forTests:stopTimeout:clock:fileID:filePath:line:column:)``.
    case noValueForTests
    /// The value read is not one that Milieu keeps, so readers would not get the one started;
    /// the string says why.
    case notKept(String)
    /// The node's services run already; the string says where they were started.
    case alreadyRunning(String)
    /// An argument of the call, which the first string names, cannot be followed; the second
    /// says why, and what to pass. The failure's ``ServiceFailure/service`` is the argument.
    case invalidArgument(String, problem: String)
    /// A fake of the service's lifecycle, named by the first string (`startFails`), was given
    /// for a run that does not start the service: none of the services it names, which the
    /// second string lists, leads to it.
    case unusedFake(String, started: String)

    /// A few words: `start failed: DatabaseDown()`.
    public var description: String {
      switch self {
      case .startFailed(let error): "start failed: \(error)"
      case .startCancelled: "start cancelled"
      case .stopFailed(let error): "stop failed: \(error)"
      case .stopTimedOut(let timeout): "stop timed out after \(timeout)"
      case .buildFailed(let error): "build failed: \(error)"
      case .missingInput(let input, _): "missing input: \(input)"
      case .cycle: "cycle"
      case .depthLimit: "depth limit"
      case .issue: "issue"
      case .noValueForTests: "no value for tests"
      case .notKept: "not kept"
      case .alreadyRunning: "already running"
      case .invalidArgument(let argument, _): "invalid argument: \(argument)"
      case .unusedFake: "unused fake"
      }
    }
  }

  /// The service's name: its accessor, or its key type.
  public let service: String
  /// The services and values that lead to it, from one the program named; its last element is
  /// ``service``.
  public let path: [String]
  /// What went wrong.
  public let reason: Reason

  /// Creates a failure.
  ///
  /// ```swift
  /// let failure = ServiceFailure(
  ///   service: "database", path: ["notesService", "database"], reason: .startCancelled)
  /// ```
  ///
  /// - Parameters:
  ///   - service: The service's name.
  ///   - path: The names that lead to it, ending with its own.
  ///   - reason: What went wrong.
  public init(service: String, path: [String], reason: Reason) {
    self.service = service
    self.path = path
    self.reason = reason
  }

  /// What went wrong, the rule it breaks and what to do, in a sentence or three.
  public var description: String {
    let name = path.count > 1 ? "\(service) (\(path.joined(separator: " → ")))" : service
    switch reason {
    case .startFailed(let error):
      return "\(name) failed to start: \(error). The services that had started were stopped, in "
        + "reverse. Fix what it needs, or catch the error in its start()."
    case .startCancelled:
      return "\(name) had not started when the start was cancelled. The services that had "
        + "started were stopped, in reverse."
    case .stopFailed(let error):
      return "\(name) failed to stop: \(error). The other services were stopped all the same."
    case .stopTimedOut(let timeout):
      return "\(name) did not stop within \(timeout): its stop was cancelled and the other "
        + "services were stopped. Make its stop() return sooner, or pass a longer stopTimeout."
    case .buildFailed(let error):
      return "\(name) could not be built: its build threw \(error). Fix what it reads, or catch "
        + "the error in its build."
    case .missingInput(let input, let error):
      return "\(name) lacks what it needs: building \(input), which it is built from, threw "
        + "\(error), so it would be built on \(input)'s fallback. Fix what \(input) reads, or "
        + "catch the error in its build."
    case .cycle(let message), .depthLimit(let message), .issue(let message):
      return "reading \(name): \(message)"
    case .noValueForTests:
      return "\(name) has a lifecycle and is built from defaults alone, so this test would start "
        + "the one the program uses. Set it, or a value it is built from, in the test's "
        + "environment: .set(\\.\(service), …)."
    case .notKept(let why):
      return "\(name) cannot be started: \(why)"
    case .alreadyRunning(let started):
      return "\(name): the services of this node are running already, started at \(started). "
        + "A node runs its services once: stop them first, or start these on a child node."
    case .invalidArgument(_, let problem):
      return problem
    case .unusedFake(let fake, let started):
      return "\(name) is faked with .\(fake)(_:), but none of the services started here "
        + "(\(started)) leads to it, so the fake would apply to nothing. Name a service that "
        + "reads \(service), or remove the fake."
    }
  }
}

/// Why services could not start, stop or pass their check: every failure, each naming its
/// service.
///
/// ```swift
/// do {
///   try await running.stop()
/// } catch {
///   logger.error("\(error)")  // one line per failure
/// }
/// ```
public struct ServiceError: Error, CustomStringConvertible {
  /// The failures, in the order they happened.
  public let failures: [ServiceFailure]

  /// Creates an error from its failures.
  ///
  /// ```swift
  /// throw ServiceError(failures: [failure])
  /// ```
  ///
  /// - Parameter failures: The failures, at least one.
  public init(failures: [ServiceFailure]) {
    self.failures = failures
  }

  /// Every failure's description, one a line.
  public var description: String {
    failures.map(\.description).joined(separator: "\n")
  }
}
