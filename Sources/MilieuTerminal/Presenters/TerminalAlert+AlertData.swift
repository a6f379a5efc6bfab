import MilieuAlerts

extension TerminalAlert {
  /// Creates the terminal drawing of a host's `AlertData`: the same title,
  /// message, text fields and buttons, in the same order.
  ///
  /// A box lets a person type into each text field, and plain text reads one line for each;
  /// ``TerminalAlertPresenter`` answers the host with what was typed. ``Terminal/present(_:)``
  /// asks the fields too, but returns only the button.
  ///
  /// Button indices match: the button at index `i` of ``buttons`` is `alert.buttons[i]`, so a
  /// ``TerminalAnswer/button(_:)`` answers the alert directly. Roles map one to one; a role this
  /// module does not know — one added after it was written — is drawn as
  /// ``TerminalButton/Role/default``.
  ///
  /// ```swift
  /// if case .button(let index) = try await Terminal().present(TerminalAlert(alert)),
  ///   let tap = alert.tapOfButton(at: index)
  /// {
  ///   try host.answer(tap, for: alert)
  /// }
  /// ```
  ///
  /// - Parameter alert: The alert to draw.
  public init(_ alert: AlertData) {
    self.init(
      title: alert.title, message: alert.message,
      buttons: alert.buttons.map { TerminalButton($0.title, role: TerminalButton.Role($0.role)) })
    textFields = alert.textFields
  }
}

extension TerminalButton.Role {
  /// The terminal role for an `AlertButton.Role`; roles added later, which this
  /// module does not know, are ``default``.
  ///
  /// - Parameter role: The alert button's role.
  public init(_ role: AlertButton.Role) {
    switch role {
    case .cancel: self = .cancel
    case .destructive: self = .destructive
    default: self = .default
    }
  }
}
