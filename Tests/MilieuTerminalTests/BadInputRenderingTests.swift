@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import Testing

@testable import MilieuTerminal

/// The terminal half of the bad-input catalogue (`MilieuAlertsTests/BadInputCatalogueTests`):
/// the same inputs, made into an `AlertData` and drawn by the terminal renderer. `AlertData`
/// keeps control characters and escape sequences as data; the renderer neutralises them, and
/// draws every repaired alert as a well-formed box.
@Suite struct BadInputRenderingTests {
  /// Each text with what a single-line rendering shows for it.
  static let hostileTexts: [(text: String, shown: String)] = [
    (
      "\u{1B}[2J\u{1B}[H\u{1B}]0;owned\u{07}Delete everything?",
      "^[[2J^[[H^[]0;owned^GDelete everything?"
    ),
    ("Bell\u{07}\u{08}\u{08}\u{7F} and NUL\u{0}", "Bell^G^H^H^? and NUL^@"),
    ("C1 \u{9B}31m and \u{85} next line", "C1 <U+009B>31m and <U+0085> next line"),
    ("Bidi \u{202E}eteleD\u{202C}", "Bidi <U+202E>eteleD<U+202C>"),
    ("Line\r\nbreaks\u{2028}and\ttabs", "Line breaks and tabs"),
  ]

  @Test(arguments: 0..<hostileTexts.count)
  func controlCharactersAreKeptByTheAlertAndNeutralisedByTheRenderer(_ index: Int) {
    let (text, shown) = Self.hostileTexts[index]
    let (alert, issues) = Self.make {
      AlertData(title: text, message: text, buttons: [.destructive(text), .cancel()])
    }
    #expect(alert.title == text && issues.isEmpty)

    let drawn = TerminalAlert(alert)
    let plain = AlertRenderer().renderPlain(drawn, width: 200)
    #expect(plain.first == shown)
    #expect(plain.contains("  1) \(shown) (destructive)"))
    for color in [false, true] {
      let box = AlertRenderer().render(drawn, width: 80, color: color, focusedButton: 0)
      let ownStyles = color ? Self.renderersOwnStyles : []
      #expect(box.allSatisfy { Self.isInert($0, allowing: ownStyles) })
      #expect(Set(box.map { DisplayWidth.columns(of: Self.strip(ownStyles, from: $0)) }).count == 1)
    }
  }

  @Test func aOneMegabyteTitleIsCutByTheAlertAndWrappedByTheRenderer() {
    let megabyte = String(repeating: "x", count: 1_000_000)
    let longButton = String(repeating: "x", count: 100_000)  // no rule cuts a button title
    let (alert, issues) = Self.make { AlertData(title: megabyte, buttons: [.default(longButton)]) }
    #expect(issues.count == 1)
    let box = AlertRenderer().render(
      TerminalAlert(alert), width: 40, color: false, focusedButton: 0)
    #expect(box.allSatisfy { DisplayWidth.columns(of: $0) == 40 })
    // The 1,000-character title wraps onto 28 lines of 36; the button is cut to one row.
    #expect(box.filter { $0.hasPrefix("│ x") }.count == 28)
    #expect(box.contains { $0.contains("[ 1 xxxx") && $0.contains("…") })
  }

  /// Found by the AlertRenderer fuzz target (input `hCEuDfCfkY3wn4+9` in base64): a message that
  /// is a lone emoji modifier, under a title of broken UTF-8 with carriage returns, at width 0.
  /// Every line's content is padded to the box's inner width, measured on its own: the modifier
  /// would join the border's space into one grapheme if the line were measured whole.
  @Test func aMessageThatStartsWithAnEmojiModifierKeepsTheBoxRectangular() {
    let title = String(repeating: "!.\r\u{FFFD}", count: 20)
    let alert = TerminalAlert(title: title, message: "\u{1F3FD}", buttons: [])
    let box = AlertRenderer().render(alert, width: 0, color: false, focusedButton: nil)
    let inner = AlertRenderer.minimumWidth - 4
    for line in box.dropFirst().dropLast() {
      let scalars = Array(line.unicodeScalars)
      #expect(scalars.prefix(2) == ["│", " "] && scalars.suffix(2) == [" ", "│"])
      var content = String.UnicodeScalarView()
      content.append(contentsOf: scalars.dropFirst(2).dropLast(2))
      #expect(DisplayWidth.columns(of: String(content)) == inner, "\(line)")
    }
    #expect(box.contains("│ " + "\u{1F3FD}" + String(repeating: " ", count: inner - 2) + " │"))
  }

  /// Found by the AlertRenderer fuzz target (input `IO+4jyrvuI9A` in base64): text that starts
  /// with a stray variation selector, then an emoji-style `*`, wrapped to one column. The wide
  /// grapheme gets a line of its own (the zero-width selector before it takes no room); the
  /// rest fits.
  @Test func aWideGraphemeAfterAZeroWidthOneWrapsOntoItsOwnLine() {
    let text = "\u{FE0F}*\u{FE0F}@"
    let lines = TextWrapper.wrap(TextSanitizer.sanitize(text, mode: .multiline), width: 0)
    #expect(lines == ["\u{FE0F}*\u{FE0F}", "@"])
    #expect(lines.map { DisplayWidth.columns(of: $0) } == [2, 1])
    #expect(TextWrapper.truncate(text, width: 0).isEmpty)
  }

  @Test func repairedAlertsDrawAsTheyWereRepaired() {
    let (twoCancels, _) = Self.make {
      AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never"), .default("Stay")])
    }
    // One cancel button, drawn last; "Never" became an ordinary button.
    #expect(
      AlertRenderer().renderPlain(TerminalAlert(twoCancels), width: 40)
        == ["Quit?", "  1) Never", "  2) Stay", "  3) No (cancel)"])

    let (duplicates, _) = Self.make {
      AlertData(title: "Pick", buttons: [.default("Same"), .default("Same")])
    }
    #expect(
      AlertRenderer().renderPlain(TerminalAlert(duplicates), width: 40)
        == ["Pick", "  1) Same", "  2) Same (2)"])
    #expect(LineAnswer.parse("same (2)", for: TerminalAlert(duplicates)) == .button(1))

    let (empty, _) = Self.make { AlertData(title: "", buttons: [.default(""), .cancel("")]) }
    #expect(
      AlertRenderer().renderPlain(TerminalAlert(empty), width: 40)
        == ["Alert", "  1) Button 1", "  2) Button 2 (cancel)"])
  }
}

extension BadInputRenderingTests {
  /// The escape sequences the renderer itself writes when colour is on.
  static let renderersOwnStyles = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[1;7m", "\u{1B}[1;7;31m", "\u{1B}[31m",
  ]

  /// Whether `line` holds no scalar a terminal acts on, once the allowed sequences are removed.
  static func isInert(_ line: String, allowing sequences: [String]) -> Bool {
    !strip(sequences, from: line).unicodeScalars.contains(where: TextSanitizer.needsNeutralising)
  }

  static func strip(_ sequences: [String], from line: String) -> String {
    sequences.reduce(line) { $0.replacing($1, with: "") }
  }

  /// Makes an alert where issues are collected rather than reported; returns both.
  static func make(_ body: () -> AlertData) -> (AlertData, [EnvironmentIssue]) {
    let issues = Lock<[EnvironmentIssue]>([])
    let node = EnvironmentNode("rendering").child {
      $0.issueReporter = IssueReporter { issue in issues.withLock { $0.append(issue) } }
    }
    let alert = node.withCurrent(body)
    return (alert, issues.withLock { $0 })
  }
}
