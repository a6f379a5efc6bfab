import Milieu

/// The host that owns the alert being shown — `current`, a single optional — and the alerts
/// waiting behind it.
///
/// ```swift
/// let host = app.installAlertHost(presenter: TerminalAlertPresenter())
/// ```
///
/// See ``PresentationHost`` for the whole behaviour.
public typealias AlertHost = PresentationHost<AlertData>

extension PresentationHost where Item == AlertData {
  /// Taps one of the current alert's buttons and starts its action.
  ///
  /// ```swift
  /// if let alert = host.current, let delete = alert.button(titled: "Delete") {
  ///   try host.tap(delete, of: alert)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - button: The button, which must be one of the alert's.
  ///   - alert: The alert, which must be ``current``.
  /// - Throws: ``PresentationError`` when the alert is not current or the button not its own;
  ///   then nothing changes.
  public func tap(_ button: AlertButton, of alert: AlertData) throws(PresentationError) {
    try respond(to: alert, with: tap(of: button, in: alert))
  }

  /// Taps one of the current alert's buttons and waits for its action to finish.
  ///
  /// ```swift
  /// try await host.tapAndWait(delete, of: alert)  // the notes are deleted now
  /// ```
  ///
  /// - Parameters:
  ///   - button: The button, which must be one of the alert's.
  ///   - alert: The alert, which must be ``current``.
  /// - Throws: ``PresentationError`` when the alert is not current or the button not its own;
  ///   then nothing changes.
  public func tapAndWait(
    _ button: AlertButton, of alert: AlertData
  ) async throws(PresentationError) {
    try await respondAndWait(to: alert, with: tap(of: button, in: alert))
  }

  /// Taps one of the current alert's buttons with the text entered in its text fields, and
  /// starts the button's action.
  ///
  /// ```swift
  /// if let alert = host.current, let rename = alert.button(titled: "Rename") {
  ///   try host.tap(rename, of: alert, texts: ["Groceries"])
  /// }
  /// ```
  ///
  /// Entered text that breaks a rule of ``AlertTextField`` — a control character, more than
  /// 4,096 characters — is repaired and reported with the rule and the fix, through
  /// ``issueReporter(for:)``: for a host without a presenter, the current node's
  /// `issueReporter`.
  ///
  /// - Parameters:
  ///   - button: The button, which must be one of the alert's.
  ///   - alert: The alert, which must be ``current``.
  ///   - texts: The text entered in each of the alert's text fields, in order.
  /// - Throws: ``PresentationError`` when the alert is not current, the button not its own, or
  ///   `texts` does not hold one text per field; then nothing changes.
  public func tap(
    _ button: AlertButton, of alert: AlertData, texts: [String]
  ) throws(PresentationError) {
    try respond(to: alert, with: tap(of: button, in: alert, texts: texts))
  }

  /// Taps one of the current alert's buttons with the text entered in its text fields, and
  /// waits for the button's action to finish.
  ///
  /// - Parameters:
  ///   - button: The button, which must be one of the alert's.
  ///   - alert: The alert, which must be ``current``.
  ///   - texts: The text entered in each of the alert's text fields, in order.
  /// - Throws: ``PresentationError`` when the alert is not current, the button not its own, or
  ///   `texts` does not hold one text per field; then nothing changes.
  public func tapAndWait(
    _ button: AlertButton, of alert: AlertData, texts: [String]
  ) async throws(PresentationError) {
    try await respondAndWait(to: alert, with: tap(of: button, in: alert, texts: texts))
  }

  private func tap(
    of button: AlertButton, in alert: AlertData
  ) throws(PresentationError) -> AlertTap {
    guard let index = alert.buttons.firstIndex(where: { $0.id == button.id }) else {
      throw .invalidAnswer("button \"\(button.title)\"", item: alert.id, title: alert.title)
    }
    guard alert.hasTextFields else { return AlertTap(alert.buttons[index], at: index) }
    return AlertTap(alert.buttons[index], at: index, textFields: alert.textFields)
  }

  private func tap(
    of button: AlertButton, in alert: AlertData, texts: [String]
  ) throws(PresentationError) -> AlertTap {
    let index = try tap(of: button, in: alert).index
    guard
      let tap = alert.tap(ofButtonAt: index, texts: texts, reportingTo: issueReporter(for: alert))
    else {
      throw .invalidAnswer(
        "\(texts.count) text fields (it has \(alert.textFields.count))", item: alert.id,
        title: alert.title)
    }
    return tap
  }
}

extension EnvironmentNode {
  /// Installs a new alert host on this node: every service in the subtree that calls
  /// `showAlert` reaches it, unless a nearer node installs its own.
  ///
  /// This is the one call that the `.showAlertView()` modifier is in SwiftUI. The node keeps the
  /// host alive; removing the override or dropping the node frees it, and then anything still
  /// waiting resolves as ``DropReason/hostDeallocated``.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// let host = app.installAlertHost(presenter: TerminalAlertPresenter())
  ///
  /// let sheet = app.child("sheet")
  /// let sheetHost = sheet.installAlertHost()  // the sheet's alerts go here
  /// ```
  ///
  /// - Parameters:
  ///   - policy: How a new alert, a duplicate and a full queue are treated.
  ///   - presenter: Draws the alerts; without one, the host only holds state.
  ///   - fileID: Recorded as the origin of the override; leave the default.
  ///   - line: Recorded as the origin of the override; leave the default.
  /// - Returns: The host.
  @discardableResult
  public func installAlertHost(
    policy: PresentationPolicy = .queue, presenter: (any Presenter<AlertData>)? = nil,
    fileID: String = #fileID, line: UInt = #line
  ) -> AlertHost {
    let host = AlertHost(policy: policy, presenter: presenter)
    update(fileID: fileID, line: line) { values in
      values.alertHost = host
      values.showAlert = ShowAlertAction(host: host)
    }
    return host
  }
}
