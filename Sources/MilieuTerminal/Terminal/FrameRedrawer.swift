/// Tracks the frame last drawn in the terminal and produces the output that replaces it.
///
/// A frame is drawn inline, below whatever was on screen; the cursor stays at the end of its
/// last line. To replace it the cursor goes back up to its first line and everything below is
/// erased. After a resize the old lines may have been re-wrapped by the terminal, so the number
/// of rows to go up is estimated from the old line width and the new terminal width, which is
/// right for terminals that re-wrap on resize (most modern ones) and an overestimate for those
/// that cut lines instead.
///
/// ```swift
/// var frame = FrameRedrawer()
/// write(frame.replace(with: firstLines, terminalColumns: 80))
/// write(frame.replace(with: nextLines, terminalColumns: 80))  // erases firstLines first
/// ```
package struct FrameRedrawer: Sendable {
  /// How many lines the last frame had; 0 before the first.
  package private(set) var lineCount = 0
  /// How many columns each line of the last frame took when it was drawn.
  package private(set) var lineWidth = 0

  /// Creates a tracker with nothing drawn yet.
  package init() {}

  /// The output that erases the previous frame (if any) and draws `lines` in its place.
  ///
  /// - Parameters:
  ///   - lines: The new frame; its first line must carry no escape sequences, since its width is
  ///     taken as the width of every line.
  ///   - terminalColumns: The terminal's width now.
  /// - Returns: The bytes to write, as text.
  package mutating func replace(with lines: [String], terminalColumns: Int) -> String {
    var output = ""
    if lineCount > 0 {
      let columns = max(1, terminalColumns)
      let rowsPerLine = max(1, (lineWidth + columns - 1) / columns)
      let rowsUp = lineCount * rowsPerLine - 1
      output += "\r"
      if rowsUp > 0 { output += "\u{1B}[\(rowsUp)A" }
      output += "\u{1B}[J"
    }
    output += lines.joined(separator: "\r\n")
    lineCount = lines.count
    lineWidth = lines.first.map { DisplayWidth.columns(of: $0) } ?? 0
    return output
  }
}
