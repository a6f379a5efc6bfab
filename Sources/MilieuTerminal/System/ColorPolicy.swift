/// When the presenter styles its output with colour, bold and reverse video.
///
/// ``automatic`` follows the conventions of command-line tools: colour only when the output is a
/// terminal, never when `NO_COLOR` is set to a non-empty value (see no-color.org), never when
/// `TERM` is `dumb`. ``always`` and ``never`` are for a program's own `--color` option and
/// override `NO_COLOR`, as that convention allows for an explicit choice.
///
/// ```swift
/// let presenter = Terminal(colorPolicy: .never)
/// ColorPolicy.automatic.allowsColor(outputIsTerminal: true, noColor: "1", term: "xterm")  // false
/// ```
public enum ColorPolicy: Hashable, Sendable {
  /// Colour when the output is a terminal, `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
  case automatic
  /// Always colour.
  case always
  /// Never colour.
  case never

  /// Decides whether to colour, from the facts passed in.
  ///
  /// ```swift
  /// let color = ColorPolicy.automatic.allowsColor(
  ///   outputIsTerminal: true, noColor: nil, term: "xterm-256color")  // true
  /// ```
  ///
  /// - Parameters:
  ///   - outputIsTerminal: Whether the output is a terminal.
  ///   - noColor: The value of `NO_COLOR`, or `nil` if unset.
  ///   - term: The value of `TERM`, or `nil` if unset.
  /// - Returns: Whether to emit colour and styles.
  public func allowsColor(outputIsTerminal: Bool, noColor: String?, term: String?) -> Bool {
    switch self {
    case .always: true
    case .never: false
    case .automatic: outputIsTerminal && (noColor ?? "").isEmpty && term != "dumb"
    }
  }

  /// Decides whether to colour output written to `fileDescriptor`, reading `NO_COLOR` and `TERM`
  /// from the process environment.
  ///
  /// ```swift
  /// let color = ColorPolicy.automatic.allowsColor(forOutput: 1)
  /// ```
  ///
  /// - Parameter fileDescriptor: The output descriptor.
  /// - Returns: Whether to emit colour and styles.
  public func allowsColor(forOutput fileDescriptor: Int32) -> Bool {
    allowsColor(
      outputIsTerminal: TerminalMode.isTerminal(fileDescriptor),
      noColor: environmentValue("NO_COLOR"),
      term: environmentValue("TERM")
    )
  }
}
