import MilieuAlerts

/// Draws a ``TerminalAlert`` as lines of text: a box for terminals, or plain numbered text for
/// pipes.
///
/// Rendering is a pure function of its inputs — alert, width, colour, focus — so its output can
/// be compared with golden files. All text from the alert is neutralised first (control characters and escape sequences made visible);
/// the only escape sequences in the output are the renderer's own styles, and only when `color`
/// is `true`.
///
/// The box:
///
/// ```text
/// ╭──────────────────────────────────────╮
/// │ Delete 3 notes?                      │
/// │                                      │
/// │ The notes will be removed from all   │
/// │ your devices.                        │
/// │                                      │
/// │ [ 1 Delete ]              2 Cancel   │
/// ╰──────────────────────────────────────╯
/// ```
///
/// - The box is as wide as its content needs, at most the terminal's width and at most
///   ``maximumWidth``, and never narrower than ``minimumWidth`` — a narrower terminal (or a width
///   of 0 or below) gets a box ``minimumWidth`` columns wide.
/// - The title is bold when colour is on. The message is wrapped to the box.
/// - Each button shows its number (1 to 9, the digit that chooses it) and its title, cut with `…`
///   if it would not fit. Buttons flow onto more rows when they do not fit on one. Cancel buttons
///   come last, pushed to the right edge of their row.
/// - A destructive button is red when colour is on. The focused button is in reverse video when
///   colour is on, and between brackets — `[ 1 Delete ]` — when it is off.
/// - Text fields come between the message and the buttons, one line each: the label, then the
///   field between brackets. A field shows the part of its text around the cursor, with `…`
///   for what is cut off on either side. The focused field shows the cursor: the character
///   under it in reverse video when colour is on, a `▏` before it when it is off. A secure field
///   shows nothing of what is typed, not even how much: only the cursor, at its start.
///
/// ```swift
/// let renderer = AlertRenderer()
/// let lines = renderer.render(alert, width: 80, color: true, focusedButton: alert.initialFocus)
/// print(lines.joined(separator: "\n"))
/// ```
public struct AlertRenderer: Sendable {
  /// The narrowest box drawn, in columns; smaller widths are raised to it.
  ///
  /// At this width a button fits with a few characters of its title.
  public static let minimumWidth = 16

  /// The widest box drawn, in columns, however wide the terminal; at least ``minimumWidth``.
  ///
  /// Keeps long messages readable on wide terminals.
  public var maximumWidth: Int

  /// Creates a renderer.
  ///
  /// - Parameter maximumWidth: The widest box to draw; 72 columns unless given. Values below
  ///   ``minimumWidth`` are raised to it.
  public init(maximumWidth: Int = 72) {
    self.maximumWidth = max(Self.minimumWidth, maximumWidth)
  }

  /// Draws `alert` as a box of lines for an interactive terminal.
  ///
  /// Every line has the same display width, the box's width. Lines carry no line terminator.
  ///
  /// ```swift
  /// let lines = AlertRenderer().render(alert, width: 40, color: false, focusedButton: 0)
  /// ```
  ///
  /// - Parameters:
  ///   - alert: The alert to draw.
  ///   - width: The terminal's width in columns. Any value is accepted; see ``minimumWidth``.
  ///   - color: Whether to style with ANSI escape sequences (bold, red, reverse video).
  ///   - focusedButton: The index in ``TerminalAlert/buttons`` of the focused button; `nil` or
  ///     an index out of range focuses none.
  /// - Returns: The box's lines, top border first.
  public func render(
    _ alert: TerminalAlert, width: Int, color: Bool, focusedButton: Int?
  ) -> [String] {
    render(alert, width: width, color: color, focusedButton: focusedButton, maximumHeight: nil)
  }

  /// Draws `alert` with a button focused and its text fields as they start.
  func render(
    _ alert: TerminalAlert, width: Int, color: Bool, focusedButton: Int?, maximumHeight: Int?
  ) -> [String] {
    render(
      alert, width: width, color: color,
      focus: AlertFocus(alert: alert, focusedButton: focusedButton), maximumHeight: maximumHeight)
  }

  /// Draws `alert` as a box of at most `maximumHeight` lines, when that is 3 or more.
  ///
  /// A box taller than the terminal cannot be redrawn in place: the cursor cannot go up past the
  /// top of the screen, so each redraw would leave a copy in the scrollback. When the box is too
  /// tall, the title and message are cut, a line "…" standing for the rest, and the buttons are
  /// kept; when even the buttons do not fit, their last rows are kept.
  func render(
    _ alert: TerminalAlert, width: Int, color: Bool, focus: AlertFocus, maximumHeight: Int?
  ) -> [String] {
    let title = TextSanitizer.sanitize(alert.title, mode: .singleLine)
    let message = alert.message.map { TextSanitizer.sanitize($0, mode: .multiline) } ?? ""
    let cells = buttonCells(for: alert, focusedButton: focus.focusedButton)
    let labels = focus.fields.map { TextSanitizer.sanitize($0.label, mode: .singleLine) }

    let natural = max(
      DisplayWidth.columns(of: title),
      message.split(whereSeparator: \.isNewline).map { DisplayWidth.columns(of: $0) }.max() ?? 0,
      singleRowWidth(of: cells),
      Self.naturalFieldsWidth(focus.fields, labels: labels)
    )
    let limit = max(Self.minimumWidth, min(width, maximumWidth))
    let outer = min(limit, max(Self.minimumWidth, natural + 4))
    let inner = outer - 4

    var text: [String] = []
    for line in Self.boxLines(title, width: inner) {
      text.append(ANSIStyle.bold.apply(to: line, color: color) + padding(line, to: inner))
    }
    if !message.isEmpty {
      text.append(String(repeating: " ", count: inner))
      for line in Self.boxLines(message, width: inner) {
        text.append(TextWrapper.pad(line, toWidth: inner))
      }
    }
    var buttons: [String] = []
    if !focus.fields.isEmpty {
      buttons.append(String(repeating: " ", count: inner))
      buttons += fieldLines(focus, labels: labels, inner: inner, color: color)
    }
    if !cells.isEmpty {
      buttons.append(String(repeating: " ", count: inner))
      buttons += buttonRows(cells, inner: inner, color: color)
    }
    var body = text + buttons
    if let maximumHeight, maximumHeight >= 3, body.count + 2 > maximumHeight {
      let room = maximumHeight - 2
      if buttons.count < room {
        body =
          text.prefix(room - buttons.count - 1) + [TextWrapper.pad("…", toWidth: inner)]
          + buttons
      } else {
        body = Array(buttons.suffix(room))
      }
    }

    let rule = String(repeating: "─", count: outer - 2)
    return ["╭" + rule + "╮"] + body.map { "│ " + $0 + " │" } + ["╰" + rule + "╯"]
  }

  /// Draws `alert` as plain text for when standard input is not a terminal.
  ///
  /// The title, the message wrapped to `width`, then one line per button in display order,
  /// numbered from 1 and followed by its role unless the role is ``TerminalButton/Role/default``:
  ///
  /// ```text
  /// Delete 3 notes?
  /// This cannot be undone.
  ///   1) Delete (destructive)
  ///   2) Cancel (cancel)
  /// ```
  ///
  /// No escape sequences are emitted, and button titles are never cut, since the user may type
  /// them.
  ///
  /// ```swift
  /// for line in AlertRenderer().renderPlain(alert, width: 80) { print(line) }
  /// ```
  ///
  /// - Parameters:
  ///   - alert: The alert to draw.
  ///   - width: The width to wrap the title and message to; raised to ``minimumWidth``.
  /// - Returns: The lines, without line terminators.
  public func renderPlain(_ alert: TerminalAlert, width: Int) -> [String] {
    let width = max(Self.minimumWidth, width)
    var lines = TextWrapper.wrap(
      TextSanitizer.sanitize(alert.title, mode: .singleLine), width: width)
    if let message = alert.message.map({ TextSanitizer.sanitize($0, mode: .multiline) }),
      !message.isEmpty
    {
      lines += TextWrapper.wrap(message, width: width)
    }
    for (position, index) in alert.displayOrder.enumerated() {
      let button = alert.buttons[index]
      let title = TextSanitizer.sanitize(button.title, mode: .singleLine)
      let role =
        switch button.role {
        case .default: ""
        case .cancel: " (cancel)"
        case .destructive: " (destructive)"
        }
      lines.append("  \(position + 1)) \(title)\(role)")
    }
    return lines
  }

  /// The prompt written, without a line break, before reading an answer in plain mode.
  ///
  /// ```swift
  /// AlertRenderer().plainPrompt(for: alert)  // "Your choice [1-2]: "
  /// ```
  ///
  /// - Parameter alert: The alert being answered.
  /// - Returns: `"Your choice [1-n]: "`, `"Your choice [1]: "` for one button, or
  ///   `"Press Enter to continue: "` for none.
  public func plainPrompt(for alert: TerminalAlert) -> String {
    switch alert.buttons.count {
    case 0: "Press Enter to continue: "
    case 1: "Your choice [1]: "
    case let count: "Your choice [1-\(count)]: "
    }
  }

  // MARK: - Text fields

  /// The narrowest a field is drawn when the box has room: wide enough to type a name into.
  private static let naturalFieldWidth = 24
  /// The cursor drawn in a field when colour is off.
  static let monochromeCursor = "▏"

  /// The width the fields ask of the box: the widest label, a space and brackets, and the
  /// longest text with room for the cursor, or ``naturalFieldWidth``.
  private static func naturalFieldsWidth(_ fields: [TextFieldEditor], labels: [String]) -> Int {
    guard !fields.isEmpty else { return 0 }
    let label = labels.map { DisplayWidth.columns(of: $0) }.max() ?? 0
    let text =
      fields.filter { !$0.isSecure }.map {
        DisplayWidth.columns(of: TextSanitizer.sanitize($0.text, mode: .singleLine))
      }.max() ?? 0
    return label + 3 + max(naturalFieldWidth, text + 1)
  }

  /// One line per field — its label, then its text between brackets — then the notice, if
  /// any, each exactly `inner` columns wide.
  private func fieldLines(
    _ focus: AlertFocus, labels: [String], inner: Int, color: Bool
  ) -> [String] {
    let widest = labels.map { DisplayWidth.columns(of: $0) }.max() ?? 0
    let labelWidth = min(max(1, widest), max(1, (inner - 3) / 2))
    let fieldWidth = inner - labelWidth - 3
    var lines: [String] = []
    for (index, field) in focus.fields.enumerated() {
      let isFocused = index == focus.focusedField
      let label = TextWrapper.pad(
        TextWrapper.truncate(labels[index], width: labelWidth), toWidth: labelWidth)
      let content = Self.fieldContent(
        field, isFocused: isFocused, width: fieldWidth, color: color)
      lines.append(
        (isFocused ? ANSIStyle.bold.apply(to: label, color: color) : label) + " [" + content + "]")
    }
    if let notice = focus.notice {
      for line in Self.boxLines(notice, width: inner) {
        lines.append(TextWrapper.pad(line, toWidth: inner))
      }
    }
    return lines
  }

  /// The inside of a field, exactly `width` columns: the part of its text around the cursor,
  /// `…` for what is cut off on either side, and the cursor when the field is focused.
  ///
  /// Which part shows depends on the text, the cursor and the width alone: the text from its
  /// start while the cursor fits, and otherwise the text up to the cursor, at the right edge.
  static func fieldContent(
    _ field: TextFieldEditor, isFocused: Bool, width: Int, color: Bool
  ) -> String {
    var cells: [(text: String, width: Int, isCursor: Bool)] = []
    if !field.isSecure {
      for character in field.text {
        let shown = TextSanitizer.sanitize(String(character), mode: .singleLine)
        cells.append((shown, DisplayWidth.columns(of: shown), false))
      }
    }
    let cursor = field.isSecure ? 0 : field.cursor
    if isFocused {
      if !color || cursor == cells.count || cells[cursor].width == 0 {
        cells.insert((color ? " " : monochromeCursor, 1, true), at: cursor)
      } else {
        cells[cursor].isCursor = true
      }
    }
    let anchor = cells.firstIndex { $0.isCursor } ?? 0
    let (start, end) = window(of: cells.map(\.width), keeping: anchor, width: width)

    var plain = start > 0 ? "…" : ""
    var styled = plain
    for cell in cells[start..<end] {
      plain += cell.text
      styled += cell.isCursor ? ANSIStyle.reverse.apply(to: cell.text, color: color) : cell.text
    }
    if end < cells.count {
      plain += "…"
      styled += "…"
    }
    let used = DisplayWidth.columns(of: plain)
    guard used <= width else {
      // Not even the cursor's cell fits beside the ellipses: show that something is there.
      return TextWrapper.pad("…", toWidth: max(0, width))
    }
    return styled + String(repeating: " ", count: width - used)
  }

  /// The cells `start..<end` to show of cells this wide within `width` columns, `anchor`
  /// among them, with a column kept for `…` on each side that is cut off.
  private static func window(of widths: [Int], keeping anchor: Int, width: Int) -> (Int, Int) {
    if widths.reduce(0, +) <= width { return (0, widths.count) }
    // From the start, keeping a column for the `…` on the right.
    var end = 0
    var used = 0
    while end < widths.count, used + widths[end] <= width - 1 {
      used += widths[end]
      end += 1
    }
    if anchor < end { return (0, end) }
    // Up to the anchor, at the right edge, with a column for each `…`.
    end = min(widths.count, anchor + 1)
    let room = width - 1 - (end < widths.count ? 1 : 0)
    var start = end - 1
    used = widths[start]
    while start > 0, used + widths[start - 1] <= room {
      start -= 1
      used += widths[start]
    }
    return (start, end)
  }

  /// The prompt written, without a line break, before reading a text field's line in plain
  /// mode: `Name: `; `Name [Roadmap]: ` for a field that starts with text, which an empty line
  /// keeps; `Password (not shown): ` for a secure field.
  ///
  /// - Parameters:
  ///   - field: The field to read.
  ///   - width: The terminal's width; the text shown between brackets is cut to fit.
  /// - Returns: The prompt.
  func plainPrompt(for field: AlertTextField, width: Int) -> String {
    let label = TextSanitizer.sanitize(field.label, mode: .singleLine)
    if field.isSecure { return label + " (not shown): " }
    guard !field.text.isEmpty else { return label + ": " }
    let room = max(Self.minimumWidth, width) / 2
    let text = TextWrapper.truncate(
      TextSanitizer.sanitize(field.text, mode: .singleLine), width: room)
    return label + " [" + text + "]: "
  }

  // MARK: - Buttons

  private struct Cell {
    var label: String
    var isFocused: Bool
    var isDestructive: Bool
    var isCancel: Bool
    var width: Int { DisplayWidth.columns(of: label) + 4 }
  }

  /// Columns between two buttons of one group, and between the last button and the cancel
  /// buttons when they share a row.
  private static let gap = 1
  private static let groupGap = 3

  private func buttonCells(for alert: TerminalAlert, focusedButton: Int?) -> [Cell] {
    alert.displayOrder.enumerated().map { position, index in
      let button = alert.buttons[index]
      let title = TextSanitizer.sanitize(button.title, mode: .singleLine)
      return Cell(
        label: position < 9 ? "\(position + 1) \(title)" : title,
        isFocused: index == focusedButton,
        isDestructive: button.role == .destructive,
        isCancel: button.role == .cancel
      )
    }
  }

  private func singleRowWidth(of cells: [Cell]) -> Int {
    guard !cells.isEmpty else { return 0 }
    let separators = zip(cells, cells.dropFirst()).map { left, right in
      left.isCancel == right.isCancel ? Self.gap : Self.groupGap
    }
    return cells.map(\.width).reduce(0, +) + separators.reduce(0, +)
  }

  private func buttonRows(_ cells: [Cell], inner: Int, color: Bool) -> [String] {
    let fitted = cells.map { cell in
      var cell = cell
      cell.label = TextWrapper.truncate(cell.label, width: inner - 4)
      return cell
    }
    let main = flow(fitted.filter { !$0.isCancel }, inner: inner)
    var cancel = flow(fitted.filter(\.isCancel), inner: inner)

    var rows: [(left: [Cell], right: [Cell])] = main.map { ($0, []) }
    if let last = rows.last, cancel.count == 1,
      rowWidth(last.left) + Self.groupGap + rowWidth(cancel[0]) <= inner
    {
      rows[rows.count - 1].right = cancel.removeFirst()
    }
    rows += cancel.map { ([], $0) }

    return rows.map { row in
      let used = rowWidth(row.left) + rowWidth(row.right)
      return draw(row.left, color: color)
        + String(repeating: " ", count: inner - used)
        + draw(row.right, color: color)
    }
  }

  private func flow(_ cells: [Cell], inner: Int) -> [[Cell]] {
    var rows: [[Cell]] = []
    var row: [Cell] = []
    for cell in cells {
      if !row.isEmpty && rowWidth(row) + Self.gap + cell.width > inner {
        rows.append(row)
        row = []
      }
      row.append(cell)
    }
    if !row.isEmpty { rows.append(row) }
    return rows
  }

  private func rowWidth(_ cells: [Cell]) -> Int {
    cells.isEmpty ? 0 : cells.map(\.width).reduce(0, +) + Self.gap * (cells.count - 1)
  }

  private func draw(_ cells: [Cell], color: Bool) -> String {
    cells.map { cell in
      if color {
        var style: ANSIStyle = []
        if cell.isFocused { style.formUnion([.bold, .reverse]) }
        if cell.isDestructive { style.insert(.red) }
        return " " + style.apply(to: " \(cell.label) ", color: true) + " "
      }
      return cell.isFocused ? "[ \(cell.label) ]" : "  \(cell.label)  "
    }
    .joined(separator: String(repeating: " ", count: Self.gap))
  }

  /// `text` wrapped to fit a box `width` columns wide. Wrapping keeps a grapheme wider than the
  /// width whole on a line of its own (one made of emoji modifiers can be any width); the box
  /// cuts such a line, so that every line of it is exactly as wide.
  private static func boxLines(_ text: String, width: Int) -> [String] {
    TextWrapper.wrap(text, width: width).map { TextWrapper.truncate($0, width: width) }
  }

  private func padding(_ text: String, to width: Int) -> String {
    String(repeating: " ", count: max(0, width - DisplayWidth.columns(of: text)))
  }
}
