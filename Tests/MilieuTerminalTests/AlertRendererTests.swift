import MilieuTestSupport
import Testing

@testable import MilieuTerminal

@Suite("AlertRenderer")
struct AlertRendererTests {
  let renderer = AlertRenderer()

  @Test(
    "The representative alert matches its golden file",
    arguments: [(40, false), (40, true), (80, false), (80, true)]
  )
  func golden(width: Int, color: Bool) {
    let lines = renderer.render(Fixtures.deleteNotes, width: width, color: color, focusedButton: 0)
    Golden.check(lines, against: "alert-w\(width)-\(color ? "color" : "mono").txt")
  }

  @Test("The plain-text rendering matches its golden file")
  func plainGolden() {
    var lines = renderer.renderPlain(Fixtures.deleteNotes, width: 80)
    lines.append(renderer.plainPrompt(for: Fixtures.deleteNotes))
    Golden.check(lines, against: "alert-plain-w80.txt")
  }

  @Test(
    "Every line of the box is exactly as wide as the box",
    arguments: [-5, 0, 10, 16, 25, 40, 80, 200])
  func linesHaveEqualWidth(width: Int) {
    for alert in [Fixtures.deleteNotes, Fixtures.threeButtons] {
      let lines = renderer.render(alert, width: width, color: false, focusedButton: 1)
      let widths = Set(lines.map { DisplayWidth.columns(of: $0) })
      #expect(widths.count == 1)
      let expected = min(max(width, AlertRenderer.minimumWidth), renderer.maximumWidth)
      #expect(widths.first ?? 0 <= max(expected, AlertRenderer.minimumWidth))
      #expect(widths.first ?? 0 >= AlertRenderer.minimumWidth)
    }
  }

  @Test("Absurd widths are clamped to the minimum")
  func absurdWidths() {
    for width in [Int.min, -1, 0, 1, 10] {
      let lines = renderer.render(Fixtures.deleteNotes, width: width, color: true, focusedButton: 0)
      #expect(lines.first.map { DisplayWidth.columns(of: $0) } == AlertRenderer.minimumWidth)
    }
    let huge = renderer.render(Fixtures.deleteNotes, width: .max, color: false, focusedButton: 0)
    #expect(huge.first.map { DisplayWidth.columns(of: $0) } == renderer.maximumWidth)
  }

  @Test("A short alert gets a box that fits its content; a lone cancel button sits right")
  func boxFitsContent() {
    let alert = TerminalAlert(title: "Saved", buttons: [TerminalButton("OK", role: .cancel)])
    let lines = renderer.render(alert, width: 80, color: false, focusedButton: 0)
    #expect(
      lines == [
        "╭──────────────╮",
        "│ Saved        │",
        "│              │",
        "│     [ 1 OK ] │",
        "╰──────────────╯",
      ])
  }

  @Test("The cancel button comes last and is pushed to the right, numbered in display order")
  func cancelSetApart() {
    let lines = renderer.render(Fixtures.threeButtons, width: 80, color: false, focusedButton: 1)
    #expect(lines[3] == "│ [ 1 Save ]   2 Discard       3 Cancel   │")
  }

  @Test("Without colour, focus is shown with brackets; with none focused there are none")
  func focusWithoutColor() {
    let focused = renderer.render(Fixtures.deleteNotes, width: 80, color: false, focusedButton: 1)
    #expect(focused.contains { $0.contains("  1 Delete  ") && $0.contains("[ 2 Cancel ]") })
    for focus in [nil, -1, 2, 99] {
      let none = renderer.render(
        Fixtures.deleteNotes, width: 80, color: false, focusedButton: focus)
      #expect(!none.joined().contains("["))
    }
  }

  @Test("With colour, the focused button is reversed and a destructive one is red")
  func focusWithColor() {
    let lines = renderer.render(Fixtures.deleteNotes, width: 80, color: true, focusedButton: 1)
    let row = lines[lines.count - 2]
    #expect(row.contains("\u{1B}[31m 1 Delete \u{1B}[0m"))
    #expect(row.contains("\u{1B}[1;7m 2 Cancel \u{1B}[0m"))
  }

  @Test("Without colour no escape sequence is ever emitted")
  func noEscapesWithoutColor() {
    let alert = TerminalAlert(
      title: "\u{1B}[31mred\u{1B}]0;owned\u{07}", message: "a\u{1B}[2Jb\u{9B}c",
      buttons: [TerminalButton("\u{1B}[5mBlink", role: .destructive)])
    for width in [10, 40, 80] {
      let text = renderer.render(alert, width: width, color: false, focusedButton: 0).joined()
      #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
      let plain = renderer.renderPlain(alert, width: width).joined()
      #expect(
        !plain.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
  }

  @Test("With colour the only escape sequences are the renderer's own styles")
  func onlyOwnEscapes() {
    let alert = TerminalAlert(
      title: "\u{1B}[31mred", message: "\u{1B}[2J", buttons: [TerminalButton("\u{1B}c")])
    let text = renderer.render(alert, width: 40, color: true, focusedButton: 0).joined()
    var remainder = Substring(text)
    for own in ["\u{1B}[1m", "\u{1B}[0m", "\u{1B}[1;7m"] {
      remainder = Substring(remainder.replacing(own, with: ""))
    }
    #expect(!remainder.contains("\u{1B}"))
    #expect(text.contains("^[[31mred"))
  }

  @Test("Buttons that do not fit on one row flow onto more rows")
  func buttonsWrap() {
    let alert = TerminalAlert(
      title: "Choose",
      buttons: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"].map { TerminalButton($0) }
        + [TerminalButton("Cancel", role: .cancel)])
    let lines = renderer.render(alert, width: 30, color: false, focusedButton: 0)
    #expect(
      lines == [
        "╭────────────────────────────╮",
        "│ Choose                     │",
        "│                            │",
        "│ [ 1 Alpha ]   2 Bravo      │",
        "│   3 Charlie     4 Delta    │",
        "│   5 Echo        6 Cancel   │",
        "╰────────────────────────────╯",
      ])
  }

  @Test("A button title too long for the box is cut with an ellipsis")
  func longButtonTitle() {
    let alert = TerminalAlert(
      title: "T", buttons: [TerminalButton("An extraordinarily long button title")])
    let lines = renderer.render(alert, width: 20, color: false, focusedButton: 0)
    #expect(lines[3] == "│ [ 1 An extrao… ] │")
  }

  @Test("Buttons past the ninth are shown without a number")
  func tenButtons() {
    let alert = TerminalAlert(title: "T", buttons: (1...10).map { TerminalButton("B\($0)") })
    let text = renderer.render(alert, width: 200, color: false, focusedButton: nil).joined()
    #expect(text.contains("  9 B9  "))
    #expect(text.contains("  B10  "))
  }

  @Test("Message line breaks are kept and blank lines preserved")
  func messageParagraphs() {
    let alert = TerminalAlert(
      title: "T", message: "one\r\ntwo\n\nthree", buttons: [TerminalButton("OK")])
    let lines = renderer.render(alert, width: 40, color: false, focusedButton: 0)
    #expect(lines[3...6].map { $0.trimmingSpacesInsideBox() } == ["one", "two", "", "three"])
  }

  @Test("An empty message is the same as none")
  func emptyMessage() {
    var alert = Fixtures.threeButtons
    let withoutMessage = renderer.render(alert, width: 40, color: false, focusedButton: 0)
    alert.message = ""
    #expect(renderer.render(alert, width: 40, color: false, focusedButton: 0) == withoutMessage)
  }

  @Test("An alert without buttons draws no button row")
  func noButtons() {
    let lines = renderer.render(
      TerminalAlert(title: "Done", buttons: []), width: 40, color: false, focusedButton: nil)
    #expect(lines.count == 3)
  }

  @Test("Wide characters and emoji keep the box aligned")
  func wideCharacters() {
    let alert = TerminalAlert(
      title: "削除しますか？👍🏽", message: "日本語のメッセージはとても長いので折り返す必要があります。",
      buttons: [TerminalButton("削除", role: .destructive), TerminalButton("キャンセル", role: .cancel)])
    for width in [16, 17, 30, 41] {
      let lines = renderer.render(alert, width: width, color: false, focusedButton: 0)
      #expect(Set(lines.map { DisplayWidth.columns(of: $0) }).count == 1)
    }
  }

  @Test("A letter with a skin-tone modifier is padded as the 3 columns a terminal draws")
  func strayEmojiModifier() {
    let alert = TerminalAlert(title: "T", message: "a🏽a🏽a🏽a🏽a🏽", buttons: [])
    let lines = renderer.render(alert, width: 0, color: false, focusedButton: nil)
    #expect(lines.contains("│ a🏽a🏽a🏽a🏽 │"))
    #expect(lines.contains("│ a🏽" + String(repeating: " ", count: 9) + " │"))
    #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) == AlertRenderer.minimumWidth })
  }

  @Test("The plain rendering lists buttons in display order with their roles")
  func plainRendering() {
    let lines = renderer.renderPlain(Fixtures.threeButtons, width: 80)
    #expect(
      lines == [
        "Unsaved changes",
        "  1) Save",
        "  2) Discard (destructive)",
        "  3) Cancel (cancel)",
      ])
  }

  @Test("The plain prompt names the range of numbers")
  func plainPrompt() {
    #expect(renderer.plainPrompt(for: Fixtures.deleteNotes) == "Your choice [1-2]: ")
    #expect(
      renderer.plainPrompt(for: TerminalAlert(title: "", buttons: [TerminalButton("OK")]))
        == "Your choice [1]: ")
    #expect(
      renderer.plainPrompt(for: TerminalAlert(title: "", buttons: []))
        == "Press Enter to continue: ")
  }

  /// Found by the AlertRenderer fuzz target: 25 emoji modifiers with no base form one grapheme
  /// 50 columns wide, which wrapping keeps whole; the box must cut it rather than grow a line.
  @Test("A grapheme wider than the box is cut, in the title as in the message")
  func aGraphemeWiderThanTheBoxIsCut() {
    let wide = String(repeating: "\u{1F3FD}", count: 25)
    for alert in [
      TerminalAlert(title: wide, buttons: [TerminalButton("OK", role: .cancel)]),
      TerminalAlert(title: "Wide", message: wide, buttons: []),
    ] {
      let lines = AlertRenderer(maximumWidth: 0).render(
        alert, width: 0, color: false, focusedButton: nil)
      #expect(Set(lines.map { DisplayWidth.columns(of: $0) }) == [AlertRenderer.minimumWidth])
      #expect(lines.contains { $0.contains("…") })
    }
  }

  @Test("Rendering random alerts never crashes and keeps every line the box's width")
  func fuzz() {
    var generator = SplitMix64(seed: 0xA1E7)
    let pieces = [
      "a", "word", " ", "  ", "\n", "\r", "\t", "\u{1B}", "[", "\u{9B}", "\u{202E}", "日", "👍🏽",
      "e\u{301}", "\u{200D}", "\u{0}", "\u{7F}", "…", "Ｗ", "longwordwithoutanyspaces",
    ]
    func text(_ length: Int) -> String {
      (0..<length).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
    }
    for _ in 0..<300 {
      let buttons = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
        TerminalButton(
          text(Int.random(in: 0...6, using: &generator)),
          role: TerminalButton.Role.allCases.randomElement(using: &generator) ?? .default)
      }
      let alert = TerminalAlert(
        title: text(Int.random(in: 0...8, using: &generator)),
        message: Bool.random(using: &generator)
          ? text(Int.random(in: 0...40, using: &generator)) : nil,
        buttons: buttons)
      let width = Int.random(in: -3...120, using: &generator)
      let focus = Int.random(in: -1...5, using: &generator)
      let lines = renderer.render(alert, width: width, color: false, focusedButton: focus)
      #expect(Set(lines.map { DisplayWidth.columns(of: $0) }).count == 1)
      _ = renderer.render(alert, width: width, color: true, focusedButton: focus)
      _ = renderer.renderPlain(alert, width: width)
    }
  }
}

extension String {
  /// The content of a box line without its borders and padding.
  func trimmingSpacesInsideBox() -> String {
    var text = Substring(self)
    if text.hasPrefix("│ ") { text = text.dropFirst(2) }
    if text.hasSuffix(" │") { text = text.dropLast(2) }
    while text.last == " " { text = text.dropLast() }
    return String(text)
  }
}
