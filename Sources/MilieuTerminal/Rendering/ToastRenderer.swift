/// Draws a ``TerminalToast`` as one line: the style's symbol, a space, and the message cut to the
/// terminal's width.
///
/// | style | symbol | colour |
/// |---|---|---|
/// | ``TerminalToast/Style/info`` | `ℹ` | blue |
/// | ``TerminalToast/Style/success`` | `✔` | green |
/// | ``TerminalToast/Style/warning`` | `⚠` | yellow |
/// | ``TerminalToast/Style/error`` | `✖` | red |
///
/// Only the symbol is coloured. The message is neutralised by ``TextSanitizer`` onto one line,
/// then cut with `…` so that the whole line fits in `width` columns (raised to at least 4).
enum ToastRenderer {
  /// The narrowest line drawn, in columns: the symbol, a space and two more columns.
  static let minimumWidth = 4

  /// Draws `toast` as a single line without a line terminator.
  ///
  /// - Parameters:
  ///   - toast: The toast to draw.
  ///   - width: The terminal's width in columns; raised to ``minimumWidth``.
  ///   - color: Whether to colour the symbol.
  /// - Returns: The line, at most `width` columns wide.
  static func render(_ toast: TerminalToast, width: Int, color: Bool) -> String {
    let (symbol, style): (String, ANSIStyle) =
      switch toast.style {
      case .info: ("ℹ", .blue)
      case .success: ("✔", .green)
      case .warning: ("⚠", .yellow)
      case .error: ("✖", .red)
      }
    let message = TextSanitizer.sanitize(toast.message, mode: .singleLine)
    let room = max(minimumWidth, width) - DisplayWidth.columns(of: symbol) - 1
    return style.apply(to: symbol, color: color) + " " + TextWrapper.truncate(message, width: room)
  }
}
