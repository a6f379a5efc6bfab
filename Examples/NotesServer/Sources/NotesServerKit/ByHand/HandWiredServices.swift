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
  public var store: any NotesStore
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
    configuration: NotesConfiguration, logger: Logger, store: any NotesStore,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.configuration = configuration
    self.logger = logger
    self.store = store
    self.clock = clock
  }
}

/// What one request of the by-hand server carries: its id, and the caller its services are
/// passed (its user, and its logger with the id and user as metadata).
public struct HandWiredRequestServices: Sendable {
  /// The request's user and logger.
  public var caller: NotesCaller
  /// The request's id.
  public var requestID: String
}
