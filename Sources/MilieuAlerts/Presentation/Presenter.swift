/// Draws a host's items and reports the user's answers back to the host.
///
/// A host calls ``present(_:in:)`` when an item becomes the one shown and ``withdraw(_:from:)``
/// when it goes away without the presenter answering (replaced, cancelled, or its host freed).
/// The presenter answers by calling the host: ``PresentationHost/answer(_:for:)`` or
/// ``PresentationHost/dismiss(_:)``, or for alerts ``PresentationHost/tap(_:of:)``, now or
/// later, from any thread. The host never holds a lock while it calls its presenter, so a
/// presenter may answer from inside ``present(_:in:)``. It calls its presenter one call at a
/// time, in the order its items changed: on the thread whose call changed them, or on a thread
/// already calling the presenter, as soon as that call returns; so ``present(_:in:)`` must
/// return at once. A presenter reports its problems with an item to
/// ``PresentationHost/issueReporter(for:)``.
///
/// ```swift
/// struct TapFirstButton: Presenter {
///   func present(_ alert: AlertData, in host: AlertHost) {
///     try? host.tap(alert.buttons[0], of: alert)
///   }
///   func withdraw(_ alert: AlertData, from host: AlertHost) {}
/// }
/// ```
public protocol Presenter<Item>: Sendable {
  /// The kind of item this presenter draws.
  associatedtype Item: Presentable

  /// Shows an item that became current in a host.
  ///
  /// - Parameters:
  ///   - item: The item to show.
  ///   - host: The host to answer.
  func present(_ item: Item, in host: PresentationHost<Item>)

  /// Takes away an item the host no longer shows: replaced, withdrawn, or shown when the host
  /// was freed.
  ///
  /// A host that is freed with an item shown calls this from its deinitializer: `host` is going
  /// away, so use it only to tell which host it was; a presenter that kept it would stop the
  /// program.
  ///
  /// - Parameters:
  ///   - item: The item to take away.
  ///   - host: The host that withdrew it.
  func withdraw(_ item: Item, from host: PresentationHost<Item>)
}
