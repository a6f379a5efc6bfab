@_spi(MilieuInternal) import Milieu
import Observation

/// A presenter whose state an app's view observes: the one alert being shown, as an optional,
/// changed only on the main actor.
///
/// Install it on the root node as the terminal presenter is installed, and hand it to the view
/// layer. The view shows ``alert`` while it is not `nil`, binds ``textFields`` to its text
/// fields, and answers with ``tap(_:of:)`` or ``dismiss(_:)``; the host learns the answer at once
/// and presents the next alert:
///
/// ```swift
/// let alerts = ObservableAlertPresenter()
/// app.installAlertHost(presenter: alerts)
///
/// // A service anywhere below `app`:
/// showAlert(title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
///
/// // The view layer, on the main actor:
/// if let alert = alerts.alert {
///   try alerts.tap(alert.buttons[0], of: alert)  // "Delete"; the next alert, if any, is shown
/// }
/// ```
///
/// In SwiftUI, a view modifier of a few lines binds it to `.alert(_:isPresented:presenting:…)`:
/// see <doc:PresentingAlertsInSwiftUI>. Every line of logic that binding calls is here.
///
/// The host calls ``present(_:in:)`` and ``withdraw(_:from:)`` on any thread, one call at a
/// time, in the order its alerts changed; the presenter takes them in the order they came and
/// applies them on the main actor. An answer given on the main actor applies what it leads to
/// before it returns — the host's next alert included, even while the host's call that
/// presents it waits for another thread — so after `tap`, ``alert`` is already the next alert
/// or `nil`. Alerts from several hosts that share
/// one presenter take turns, one shown at a time.
///
/// An answer to an alert that is no longer shown — answered already, replaced, withdrawn, or
/// never shown here — changes nothing and throws ``PresentationError/notCurrent(_:title:current:)``,
/// which says why. A view that cannot act on the error (a button's action) may ignore it: a
/// late tap on an alert that is going away is harmless.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ObservableAlertPresenter: Presenter {
  /// The alert being shown, or `nil`: the single optional a view presents.
  public private(set) var alert: AlertData?

  /// Whether an alert is shown, ``alert`` not `nil`: what a view binds an `isPresented`
  /// parameter to.
  ///
  /// Setting it changes nothing. SwiftUI sets it to `false` when a button of the alert is
  /// tapped, but the button's action — ``tap(_:of:)`` — has answered the alert, or is about to,
  /// and the next alert may be shown already; an alert goes away only by its answer or its
  /// host's withdrawal.
  ///
  /// ```swift
  /// content.alert(title, isPresented: $alerts.isPresented, presenting: alerts.alert) { … }
  /// ```
  public var isPresented: Bool {
    get { alert != nil }
    set {}
  }

  /// The text fields of ``alert``, each with the text entered so far, for a view to bind its
  /// text fields to; empty while no alert with text fields is shown.
  ///
  /// Each alert starts with its own ``AlertData/textFields``. ``tap(_:of:)`` answers with the
  /// text of each of the alert's fields found here by identity; a field missing here keeps the
  /// text it starts with.
  ///
  /// ```swift
  /// alerts.textFields[0].text = "Groceries"
  /// try alerts.tap(rename, of: alert)  // the tap carries Name: "Groceries"
  /// ```
  public var textFields: [AlertTextField] = []

  /// The alerts hosts presented here, taking turns in the order they came; the one whose turn
  /// it is is ``alert``.
  @ObservationIgnored private var shown = Turns<Showing>()

  /// The alerts shown here before their host's message came, whose message is to be skipped.
  @ObservationIgnored private var presentedEarly: Set<PresentationID> = []

  /// What the hosts said, in order, until the main actor applies it.
  @ObservationIgnored private nonisolated let mailbox = Lock(Mailbox())

  /// Creates a presenter that shows nothing yet; create it anywhere, use it on the main actor.
  ///
  /// ```swift
  /// let alerts = ObservableAlertPresenter()
  /// app.installAlertHost(presenter: alerts)
  /// ```
  public nonisolated init() {}

  // MARK: Answering

  /// Taps one of the shown alert's buttons, with the text of ``textFields``, and starts the
  /// button's action; ``alert`` is the next alert, or `nil`, when this returns.
  ///
  /// ```swift
  /// Button(button.title, role: role) { try? alerts.tap(button, of: alert) }
  /// ```
  ///
  /// The host checks the entered text: a control character or more than 4,096 characters in a
  /// field is repaired and reported through the host's `issueReporter(for:)`.
  ///
  /// - Parameters:
  ///   - button: The button, which must be one of the alert's.
  ///   - alert: The alert, which must be ``alert``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when the alert is not the one
  ///   shown, ``PresentationError/invalidAnswer(_:item:title:)`` when the button is not its own;
  ///   then nothing changes.
  public func tap(_ button: AlertButton, of alert: AlertData) throws(PresentationError) {
    let texts = alert.textFields.map { field in
      textFields.first { $0.id == field.id }?.text ?? field.text
    }
    try answer(alert) { host throws(PresentationError) in
      if texts.isEmpty {
        try host.tap(button, of: alert)
      } else {
        try host.tap(button, of: alert, texts: texts)
      }
    }
  }

  /// Dismisses the shown alert without a tap, which runs its cancel button's action; ``alert``
  /// is the next alert, or `nil`, when this returns.
  ///
  /// - Parameter alert: The alert, which must be ``alert``.
  /// - Throws: ``PresentationError/notCurrent(_:title:current:)`` when the alert is not the one
  ///   shown; then nothing changes.
  public func dismiss(_ alert: AlertData) throws(PresentationError) {
    try answer(alert) { host throws(PresentationError) in try host.dismiss(alert) }
  }

  /// Hands the answer to the shown alert's host, then applies what the host said meanwhile,
  /// the next alert included.
  private func answer(
    _ alert: AlertData, _ body: (AlertHost) throws(PresentationError) -> Void
  ) throws(PresentationError) {
    guard let showing = shown.current, showing.alert.id == alert.id else {
      throw .notCurrent(alert.id, title: alert.title, current: self.alert?.id)
    }
    // What the host says while it takes the answer is applied below, before this returns, not
    // in a drain of its own.
    mailbox.withLock { $0.isDrainPending = true }
    defer { drain() }
    guard let host = showing.host else {
      // Its host is gone, and every alert of it dropped: nobody will take the answer.
      passTurn()
      throw .notCurrent(alert.id, title: alert.title, current: nil)
    }
    do {
      try body(host)
    } catch .notCurrent(let id, let title, let current) {
      // The host moved on without telling (its alert was answered through the host itself).
      passTurn()
      throw .notCurrent(id, title: title, current: current)
    }
    passTurn()
    applyMessages()
    // A host calls a presenter from one thread at a time, so the call that presents its next
    // alert may be waiting for another thread to return from this presenter: that alert is
    // current in the host already, and shown now; its message is skipped when it comes.
    if let next = host.current, !shown.contains(next.id) {
      shown.add(Showing(alert: next, host: host))
      presentedEarly.insert(next.id)
    }
  }

  /// Ends the turn of the alert shown and gives it to the next one waiting.
  private func passTurn() {
    shown.endTurn()
    shown.startNext()
  }

  // MARK: Presenter

  /// Takes an alert that became current in a host, to show it on the main actor once the
  /// alerts before it are answered.
  ///
  /// The host calls this, from any thread; you do not.
  ///
  /// - Parameters:
  ///   - alert: The alert to show.
  ///   - host: The host to answer.
  public nonisolated func present(_ alert: AlertData, in host: AlertHost) {
    post(.present(Showing(alert: alert, host: host)))
  }

  /// Takes away an alert its host no longer shows: replaced, its host freed, or withdrawn
  /// because the task awaiting it was cancelled.
  ///
  /// The host calls this, from any thread; you do not.
  ///
  /// - Parameters:
  ///   - alert: The alert to take away.
  ///   - host: The host that withdrew it.
  public nonisolated func withdraw(_ alert: AlertData, from host: AlertHost) {
    post(.withdraw(alert.id))
  }

  // MARK: Applying

  private struct Showing: Identifiable, Sendable {
    let alert: AlertData
    var id: PresentationID { alert.id }
    /// Weak: the host holds its presenter, and an alert shown here must not keep its host.
    weak var host: AlertHost?
  }

  private enum Message: Sendable {
    case present(Showing)
    case withdraw(PresentationID)
  }

  private struct Mailbox: Sendable {
    var messages: [Message] = []
    /// Whether a drain will take the messages: one is scheduled on the main actor, or an answer
    /// on the main actor drains when the host returns.
    var isDrainPending = false
  }

  /// Queues a message, and schedules a drain on the main actor unless one will run anyway.
  private nonisolated func post(_ message: Message) {
    let schedules = mailbox.withLock { mailbox in
      mailbox.messages.append(message)
      guard !mailbox.isDrainPending else { return false }
      mailbox.isDrainPending = true
      return true
    }
    if schedules {
      Task { @MainActor in self.drain() }
    }
  }

  /// Applies every message queued so far, in order, then publishes the first alert shown.
  private func drain() {
    applyMessages()
    let first = shown.current?.alert
    guard first?.id != alert?.id else { return }
    alert = first
    textFields = first?.textFields ?? []
  }

  /// Applies every message queued so far, in order.
  private func applyMessages() {
    let messages = mailbox.withLock { mailbox in
      mailbox.isDrainPending = false
      defer { mailbox.messages = [] }
      return mailbox.messages
    }
    for message in messages {
      switch message {
      case .present(let showing):
        if presentedEarly.isEmpty || presentedEarly.remove(showing.alert.id) == nil {
          shown.add(showing)
        }
      case .withdraw(let id):
        if shown.remove(id)?.hadTurn == true { shown.startNext() }
      }
    }
  }
}
