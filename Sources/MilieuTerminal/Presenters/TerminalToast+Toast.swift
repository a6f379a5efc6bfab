import MilieuAlerts

extension TerminalToast {
  /// Creates the terminal drawing of a host's `Toast`: its message and style.
  ///
  /// - Parameter toast: The toast to draw.
  public init(_ toast: Toast) {
    self.init(toast.message, style: Style(toast.style))
  }
}

extension TerminalToast.Style {
  /// The terminal style for a `Toast.Style`.
  ///
  /// - Parameter style: The toast's style.
  public init(_ style: Toast.Style) {
    switch style {
    case .info: self = .info
    case .success: self = .success
    case .warning: self = .warning
    case .error: self = .error
    }
  }
}
