/// Wraps and cuts text by terminal columns, never splitting a grapheme cluster.
///
/// Widths come from ``DisplayWidth``. Wrapping breaks at spaces; a word wider than the line is
/// broken between grapheme clusters. Spaces at a break disappear, spaces between words on one
/// line are kept as written, and spaces at the start of a paragraph (an indent) are kept when
/// they fit. Every line break in the input (`\n`, `\r\n`, U+2028, …) starts a new paragraph, and
/// an empty paragraph becomes an empty line.
///
/// The wrapper does not neutralise control characters: pass text through ``TextSanitizer``
/// first.
enum TextWrapper {
  /// Wraps `text` into lines no wider than `width` columns.
  ///
  /// A single grapheme cluster wider than `width` (a wide character when `width` is 1, or a
  /// letter with a stray emoji modifier, 3 columns, when `width` is 2) gets a line of its own,
  /// which is then wider than `width`; every other line fits. A `width` below 1 is treated as 1.
  /// The result always has at least one line.
  ///
  /// - Parameters:
  ///   - text: The text to wrap, already sanitized.
  ///   - width: The largest number of columns per line.
  /// - Returns: The lines, without line terminators.
  /// - Complexity: O(*n*) in the length of `text`.
  static func wrap(_ text: String, width: Int) -> [String] {
    let width = max(1, width)
    var lines: [String] = []
    for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      lines += wrapParagraph(paragraph, width: width)
    }
    return lines.isEmpty ? [""] : lines
  }

  /// Cuts `text` to at most `width` columns, ending it with `…` when something was cut.
  ///
  /// - Parameters:
  ///   - text: The text to cut, already sanitized and on one line.
  ///   - width: The largest number of columns; 0 or less gives an empty string.
  /// - Returns: `text` itself if it fits, otherwise its longest prefix of whole grapheme clusters
  ///   that fits in `width - 1` columns, without trailing spaces, followed by `…`.
  static func truncate(_ text: String, width: Int) -> String {
    guard width > 0 else { return "" }
    if DisplayWidth.columns(of: text) <= width { return text }
    var result = ""
    var used = 0
    for character in text {
      let columns = DisplayWidth.columns(of: character)
      if used + columns > width - 1 { break }
      result.append(character)
      used += columns
    }
    while result.last == " " { result.removeLast() }
    return result + "…"
  }

  /// Pads `text` with spaces on the right to `width` columns; text already that wide is returned
  /// unchanged.
  ///
  /// - Parameters:
  ///   - text: The text to pad.
  ///   - width: The width to reach.
  /// - Returns: `text` followed by enough spaces to be `width` columns wide.
  static func pad(_ text: String, toWidth width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - DisplayWidth.columns(of: text)))
  }

  private static func wrapParagraph(_ paragraph: Substring, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    var lineWidth = 0
    var pendingSpaces = 0
    var isIndent = true
    var word = ""
    var wordWidth = 0

    func finishLine() {
      lines.append(line)
      line = ""
      lineWidth = 0
    }

    func place() {
      defer {
        word = ""
        wordWidth = 0
        pendingSpaces = 0
        isIndent = false
      }
      guard !word.isEmpty else { return }
      let spaces = (lineWidth > 0 || isIndent) ? pendingSpaces : 0
      if lineWidth + spaces + wordWidth <= width {
        line += String(repeating: " ", count: spaces) + word
        lineWidth += spaces + wordWidth
        return
      }
      if lineWidth > 0 { finishLine() }
      if wordWidth <= width {
        line = word
        lineWidth = wordWidth
        return
      }
      for character in word {
        let columns = DisplayWidth.columns(of: character)
        if lineWidth > 0 && lineWidth + columns > width { finishLine() }
        line.append(character)
        lineWidth += columns
      }
    }

    for character in paragraph {
      if character == " " {
        if !word.isEmpty { place() }
        pendingSpaces += 1
      } else {
        word.append(character)
        wordWidth += DisplayWidth.columns(of: character)
      }
    }
    place()
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}
