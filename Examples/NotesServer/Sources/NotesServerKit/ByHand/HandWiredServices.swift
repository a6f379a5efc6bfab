import Logging

/// What the by-hand server shares across requests: the same values Milieu's app node holds,
/// passed down as one value instead.
///
/// The by-hand variant exists to measure Milieu against: it is the same server, with every
/// service handed to whoever needs it by the code that calls it.
public struct HandWiredAppServices: Sendable {
  /// The server's configuration.
  public var configuration: NotesConfiguration
  /// The server's logger, without request metadata.
  public var logger: Logger
  /// Where the notes live.
  public var store: NotesStore
  /// The clock that times confirmation tokens.
  public var clock: any Clock<Duration>

  /// Creates the shared services.
  ///
  /// - Parameters:
  ///   - configuration: The server's configuration.
  ///   - logger: The server's logger.
  ///   - store: Where the notes live.
  ///   - clock: The clock that times confirmation tokens.
  public init(
    configuration: NotesConfiguration, logger: Logger, store: NotesStore,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.configuration = configuration
    self.logger = logger
    self.store = store
    self.clock = clock
  }
}

/// What one request of the by-hand server carries: the shared services, and its own user, id,
/// logger and `notify` action.
public struct HandWiredRequestServices: Sendable {
  /// What every request shares.
  public var app: HandWiredAppServices
  /// The user the request acts for.
  public var user: AuthenticatedUser
  /// The request's id.
  public var requestID: String
  /// The server's logger with the request's id and user as metadata.
  public var logger: Logger
  /// Logs notifications with the request's logger.
  public var notify: NotifyAction
}
