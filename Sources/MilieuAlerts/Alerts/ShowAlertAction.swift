@_spi(MilieuInternal) import Milieu

/// Shows an alert from anywhere: the callable value at `EnvironmentValues.showAlert`.
///
/// Read it with `@Environment` in any service, however deeply nested, and call it. It hands
/// the alert to the nearest ``AlertHost`` installed above the service's node:
///
/// ```swift
/// struct NoteService {
///   @Environment(\.showAlert) var showAlert
///
///   func confirmDelete(_ count: Int) {
///     showAlert(
///       title: "Delete \(count) notes?",
///       buttons: [.destructive("Delete") { await delete() }, .cancel()])
///   }
/// }
/// ```
///
/// Calling it fires and forgets, from synchronous or asynchronous code, without `await`. To wait
/// for the answer, use ``ask(title:message:textFields:buttons:deduplicationKey:priority:fileID:filePath:line:column:)``,
/// which returns the ``AlertOutcome`` and resolves exactly once — tapped, dismissed, or dropped
/// with its reason, including when the awaiting task is cancelled.
///
/// With no host installed, the default action reports the call site through the
/// `issueReporter` (a test failure under a test runner, a line on
/// standard error otherwise) and the alert resolves as ``DropReason/noHost``.
///
/// Read through `@Environment`, the action belongs to the node it was read from: it reaches
/// that node's host, and reports bad input or a missing host to that node's `issueReporter`,
/// naming that node, whichever node is current when it is called.
///
/// In tests, replace it: `ShowAlertAction { alert, resolve in … }`, or use `MilieuTesting`'s
/// `AlertRecorder`.
public struct ShowAlertAction: Sendable {
  package let engine: PresentationAction<AlertData>

  package init(engine: PresentationAction<AlertData>) {
    self.engine = engine
  }

  /// An action that hands every alert to a closure, which answers it by calling `resolve`.
  ///
  /// ```swift
  /// let shown = Lock<[AlertData]>([])  // any lock or actor
  /// let action = ShowAlertAction { alert, resolve in
  ///   shown.withLock { $0.append(alert) }
  ///   resolve(.dismissed)
  /// }
  /// ```
  ///
  /// If the closure lets `resolve` go without calling it, the alert resolves as
  /// ``DropReason/unanswered``; calls after the first are ignored.
  ///
  /// - Parameter handler: Receives each alert and a function that resolves it.
  public init(
    _ handler:
      @escaping @Sendable (
        _ alert: AlertData, _ resolve: @escaping @Sendable (AlertOutcome) -> Void
      ) -> Void
  ) {
    engine = PresentationAction(handler: handler)
  }

  /// An action that shows alerts in a host, which it holds weakly.
  ///
  /// Usually ``Milieu/EnvironmentNode/installAlertHost(policy:presenter:fileID:line:)`` makes it
  /// for you.
  ///
  /// - Parameter host: The host.
  public init(host: AlertHost) {
    engine = PresentationAction(host: host)
  }

  /// The action in force where no host is installed: it reports the call site and drops the
  /// alert as ``DropReason/noHost``.
  public static let noHost = ShowAlertAction(
    engine: .noHost(
      "The alert", entry: "\\.showAlert",
      install: "Install a host with `node.installAlertHost()` on your root node, "
        + "or an AlertRecorder in tests."))

  // MARK: Fire and forget

  /// Shows an alert.
  ///
  /// ```swift
  /// showAlert(title: "Saved")
  /// showAlert(title: "Sync failed", message: error.description, buttons: [.default("Retry") { await sync() }, .cancel()])
  /// showAlert(title: "Disk full", priority: .high)  // ahead of the alerts waiting
  /// ```
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - textFields: The text fields, in order; see ``AlertTextField``.
  ///   - buttons: The buttons; none means one "OK" cancel button.
  ///   - deduplicationKey: Alerts with the same key are duplicates.
  ///   - priority: How soon the alert is presented when others wait; see
  ///     ``PresentationPriority``.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public func callAsFunction(
    title: String, message: String? = nil, textFields: [AlertTextField] = [],
    buttons: [AlertButton] = [], deduplicationKey: String? = nil,
    priority: PresentationPriority = .normal,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    engine(
      engine.inNode {
        AlertData(
          title: title, message: message, textFields: textFields, buttons: buttons,
          deduplicationKey: deduplicationKey, priority: priority,
          fileID: fileID, filePath: filePath, line: line, column: column)
      })
  }

  /// Shows an alert made beforehand.
  ///
  /// - Parameter alert: The alert.
  public func callAsFunction(_ alert: AlertData) {
    engine(alert)
  }

  /// Shows an alert and calls back with its outcome.
  ///
  /// - Parameters:
  ///   - alert: The alert.
  ///   - completion: Receives the outcome, exactly once.
  public func callAsFunction(
    _ alert: AlertData, completion: @escaping @Sendable (AlertOutcome) -> Void
  ) {
    engine(alert, completion: completion)
  }

  /// Shows the alert an ``AlertProvider`` describes, such as a case of an app's enum of alerts.
  ///
  /// ```swift
  /// showAlert(NoteAlert.deleteFailed(name: "Groceries"))
  /// ```
  ///
  /// - Parameter provider: The provider.
  public func callAsFunction(_ provider: some AlertProvider) {
    engine(provider.alert)
  }

  /// Shows an ``AlertState``; tapping a button sends the button's action.
  ///
  /// ```swift
  /// showAlert(state.alert, send: { store.send($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - state: The alert's state.
  ///   - send: Receives the action of the tapped button; dismissing sends the cancel button's.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public func callAsFunction<Action: Sendable>(
    _ state: AlertState<Action>, send: @escaping @Sendable (Action) -> Void,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    engine(
      engine.inNode {
        state.alertData(
          send: send,
          callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
      })
  }

  /// Shows an ``AlertState`` with text fields; tapping a button sends the button's action with
  /// the text entered in each field.
  ///
  /// ```swift
  /// showAlert(state.renameAlert, send: { action, texts in store.send(action, name: texts[0]) })
  /// ```
  ///
  /// The action is sent when the alert is answered: the tapped button's with what was entered,
  /// or on a dismissal the cancel button's with the text each field started with. A button
  /// without an action sends nothing, and neither does an alert that is dropped.
  ///
  /// - Parameters:
  ///   - state: The alert's state.
  ///   - send: Receives the action and the text of each of the state's text fields, in order.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  public func callAsFunction<Action: Sendable>(
    _ state: AlertState<Action>, send: @escaping @Sendable (Action, _ texts: [String]) -> Void,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let (alert, completion) = engine.inNode {
      state.alertData(
        sendingTexts: send,
        callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    engine(alert, completion: completion)
  }

  // MARK: Awaiting

  /// Shows an alert and waits for its outcome.
  ///
  /// ```swift
  /// let outcome = await showAlert.ask(
  ///   title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
  /// if outcome.tappedButton?.role == .destructive { try await delete() }
  /// ```
  ///
  /// The outcome arrives exactly once: the tapped button (after its action finished), a
  /// dismissal, or a drop with its reason. If the waiting task is cancelled, the alert is
  /// withdrawn and the outcome is ``DropReason/cancelled``.
  ///
  /// With text fields, the tapped button carries what was entered:
  ///
  /// ```swift
  /// let outcome = await showAlert.ask(
  ///   title: "Rename note", textFields: [AlertTextField("Name", text: "Roadmap")],
  ///   buttons: [.default("Rename"), .cancel()])
  /// let name = outcome.tappedButton?.text(of: "Name")
  /// ```
  ///
  /// - Parameters:
  ///   - title: The title.
  ///   - message: The message under the title.
  ///   - textFields: The text fields, in order; see ``AlertTextField``.
  ///   - buttons: The buttons; none means one "OK" cancel button.
  ///   - deduplicationKey: Alerts with the same key are duplicates.
  ///   - priority: How soon the alert is presented when others wait; see
  ///     ``PresentationPriority``.
  ///   - fileID: The call site; leave the default.
  ///   - filePath: The call site; leave the default.
  ///   - line: The call site; leave the default.
  ///   - column: The call site; leave the default.
  /// - Returns: How the alert was resolved.
  public func ask(
    title: String, message: String? = nil, textFields: [AlertTextField] = [],
    buttons: [AlertButton] = [], deduplicationKey: String? = nil,
    priority: PresentationPriority = .normal,
    fileID: String = #fileID, filePath: String = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> AlertOutcome {
    await engine.ask(
      engine.inNode {
        AlertData(
          title: title, message: message, textFields: textFields, buttons: buttons,
          deduplicationKey: deduplicationKey, priority: priority,
          fileID: fileID, filePath: filePath, line: line, column: column)
      })
  }

  /// Shows an alert made beforehand and waits for its outcome.
  ///
  /// - Parameter alert: The alert.
  /// - Returns: How the alert was resolved.
  public func ask(_ alert: AlertData) async -> AlertOutcome {
    await engine.ask(alert)
  }

  /// Shows the alert an ``AlertProvider`` describes and waits for its outcome.
  ///
  /// - Parameter provider: The provider.
  /// - Returns: How the alert was resolved.
  public func ask(_ provider: some AlertProvider) async -> AlertOutcome {
    await engine.ask(provider.alert)
  }
}

extension EnvironmentValues {
  static let showAlert = Entry(ShowAlertAction.noHost)

  /// Shows an alert through the nearest ``AlertHost`` above the node.
  ///
  /// ```swift
  /// @Environment(\.showAlert) var showAlert
  /// ```
  public var showAlert: ShowAlertAction {
    get { self[Self.showAlert] }
    set { self[Self.showAlert] = newValue }
  }

  static let alertHost = Entry<AlertHost?>(nil)

  /// The nearest ``AlertHost`` installed on the node or above it, if any.
  ///
  /// ```swift
  /// if let host = request[\.alertHost], let alert = host.current { try host.dismiss(alert) }
  /// ```
  ///
  /// ``Milieu/EnvironmentNode/installAlertHost(policy:presenter:fileID:line:)`` sets it together
  /// with ``showAlert``; the node keeps the host alive.
  public var alertHost: AlertHost? {
    get { self[Self.alertHost] }
    set { self[Self.alertHost] = newValue }
  }
}

extension ShowAlertAction: EnvironmentBindable {
  /// The action, reporting to `node` whichever node is current when it is called;
  /// `@Environment(\.showAlert)` binds it to the node it reads from.
  ///
  /// ```swift
  /// let showAlert = EnvironmentNode.current[\.showAlert].bound(to: request)
  /// ```
  ///
  /// - Parameter node: The node whose `issueReporter` receives the action's issues.
  /// - Returns: The bound action.
  public func bound(to node: EnvironmentNode) -> ShowAlertAction {
    ShowAlertAction(engine: engine.bound(to: node))
  }
}

extension ShowAlertAction: CustomStringConvertible {
  /// `ShowAlertAction`, which tree dumps and explanations show for the action.
  public var description: String { "ShowAlertAction" }
}
