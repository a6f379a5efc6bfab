import Testing

@testable import MilieuTerminal

@Suite("DisplayWidth")
struct DisplayWidthTests {
  @Test(
    "Grapheme clusters have the expected width",
    arguments: [
      ("a", 1), (" ", 1), ("é", 1), ("e\u{301}", 1), ("日", 2), ("한", 2), ("ア", 2), ("ｱ", 1),
      ("Ａ", 2), ("👍", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2), ("❤\u{FE0F}", 2), ("❤", 1),
      ("⚠", 1), ("…", 1), ("─", 1), ("\u{301}", 0), ("\u{200B}", 0), ("\u{0}", 0),
      ("\u{1100}\u{1161}", 2), ("𠀀", 2),
    ] as [(Character, Int)])
  func characterWidth(character: Character, expected: Int) {
    #expect(DisplayWidth.columns(of: character) == expected)
  }

  @Test(
    "An emoji modifier that follows no modifier base is drawn as a swatch of its own",
    arguments: [
      ("a\u{1F3FD}", 3), ("\u{1F3FD}", 2), ("日\u{1F3FD}", 4), ("a\u{1F3FD}\u{1F3FD}", 5),
      ("👍🏽", 2), ("✌🏽", 2), ("✌\u{FE0F}🏽", 2), ("👨‍👩‍👧", 2), ("👩🏽‍🤝‍👨🏿", 2),
    ] as [(Character, Int)])
  func emojiModifierWidth(character: Character, expected: Int) {
    #expect(DisplayWidth.columns(of: character) == expected)
  }

  @Test("A string's width is the sum of its clusters'")
  func stringWidth() {
    #expect(DisplayWidth.columns(of: "") == 0)
    #expect(DisplayWidth.columns(of: "Delete 3 notes?") == 15)
    #expect(DisplayWidth.columns(of: "日本語abc") == 9)
    #expect(DisplayWidth.columns(of: "Cafe\u{301} 👍🏽") == 7)
    #expect(DisplayWidth.columns(of: "ab"[...]) == 2)
    #expect(DisplayWidth.columns(of: "Tone a\u{1F3FD} 👍🏽") == 11)
  }
}
