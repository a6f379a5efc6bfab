#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The size of a terminal window in character cells.
///
/// Read it when presenting and again after a resize (see ``TerminalResizeMonitor``); never cache
/// it for long.
struct TerminalSize: Hashable, Sendable {
  /// The width used when nothing else says how wide the output is.
  static let fallbackColumns = 80

  /// The number of columns.
  var columns: Int

  /// The number of rows.
  var rows: Int

  /// Asks the terminal behind `fileDescriptor` for its size (`ioctl` `TIOCGWINSZ`).
  ///
  /// - Parameter fileDescriptor: A descriptor open on a terminal.
  /// - Returns: The size, or `nil` if the descriptor is not a terminal or reports zero columns
  ///   (as a fresh pseudo-terminal does).
  static func measure(_ fileDescriptor: Int32) -> TerminalSize? {
    var size = winsize()
    guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
  }

  /// The width to lay out for: the first terminal among `fileDescriptors` that reports one, then
  /// the `COLUMNS` environment variable, then ``fallbackColumns``.
  ///
  /// - Parameter fileDescriptors: The descriptors to ask, in order; standard output, input and
  ///   error unless given.
  /// - Returns: A width of at least 1.
  static func currentColumns(of fileDescriptors: [Int32] = [1, 0, 2]) -> Int {
    let measured = fileDescriptors.lazy.compactMap { measure($0)?.columns }.first
    return columns(measured: measured, columnsVariable: environmentValue("COLUMNS"))
  }

  /// The width chosen from a measurement and the `COLUMNS` variable: the measurement if there
  /// is one, else `COLUMNS` if it is a positive integer, else ``fallbackColumns``.
  ///
  /// - Parameters:
  ///   - measured: The width a terminal reported, if any.
  ///   - columnsVariable: The value of `COLUMNS`, if set.
  /// - Returns: A width of at least 1.
  static func columns(measured: Int?, columnsVariable: String?) -> Int {
    if let measured, measured > 0 { return measured }
    if let text = columnsVariable, let value = Int(text), value > 0 { return value }
    return fallbackColumns
  }
}

/// The value of the environment variable `name`, if set.
func environmentValue(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}
