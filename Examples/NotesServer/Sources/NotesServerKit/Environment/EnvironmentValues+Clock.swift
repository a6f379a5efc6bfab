import Milieu

extension EnvironmentValues {
  static let clock = Entry<any Clock<Duration>>(ContinuousClock())

  /// The clock that times what expires, such as delete-all confirmation tokens.
  ///
  /// The live server uses `ContinuousClock`; tests set a clock they move by hand, such as
  /// MilieuTesting's `TestClock`.
  ///
  /// ```swift
  /// withTestEnvironment(.set(\.clock, TestClock())) { … }
  /// ```
  public var clock: any Clock<Duration> {
    get { self[Self.clock] }
    set { self[Self.clock] = newValue }
  }
}

extension Clock where Duration == Swift.Duration {
  /// Whether this clock's time has reached a deadline taken from it.
  ///
  /// A deadline taken from another clock cannot be compared with this one's time; it counts as
  /// reached, so that whatever it guards expires rather than lives forever.
  ///
  /// - Parameter deadline: An instant of this clock.
  /// - Returns: Whether `now` is at or past `deadline`.
  func hasReached(_ deadline: any InstantProtocol<Duration>) -> Bool {
    guard let deadline = deadline as? Instant else { return true }
    return now >= deadline
  }

  /// The instant a duration from now, type-erased so that it can be stored beside the clock.
  ///
  /// - Parameter duration: How far ahead.
  /// - Returns: The deadline.
  func deadline(after duration: Duration) -> any InstantProtocol<Duration> {
    now.advanced(by: duration)
  }
}
