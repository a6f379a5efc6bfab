/// A short, one-line notice drawn in the terminal: a message and a style.
///
/// Toasts never take input. One is drawn as a single line that starts with the
/// style's symbol and is cut to the terminal's width.
///
/// ```swift
/// let toast = TerminalToast("Saved 3 notes", style: .success)
/// ```
public struct TerminalToast: Sendable, Hashable {
  /// The look of a toast: its symbol and, when colour is on, its colour.
  public enum Style: Sendable, Hashable, CaseIterable {
    /// Neutral information: `ℹ`, blue.
    case info
    /// Something worked: `✔`, green.
    case success
    /// Something needs attention: `⚠`, yellow.
    case warning
    /// Something failed: `✖`, red.
    case error
  }

  /// The message.
  ///
  /// Line breaks and control characters are shown neutralised on one line.
  public var message: String

  /// The toast's style, which picks its symbol and colour.
  public var style: Style

  /// Creates a toast.
  ///
  /// - Parameters:
  ///   - message: The text to show.
  ///   - style: The style; ``Style/info`` unless given.
  public init(_ message: String, style: Style = .info) {
    self.message = message
    self.style = style
  }
}
