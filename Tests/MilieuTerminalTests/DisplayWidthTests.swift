import MilieuTerminal
import Testing

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

  @Test("A string's width is the sum of its clusters'")
  func stringWidth() {
    #expect(DisplayWidth.columns(of: "") == 0)
    #expect(DisplayWidth.columns(of: "Delete 3 notes?") == 15)
    #expect(DisplayWidth.columns(of: "日本語abc") == 9)
    #expect(DisplayWidth.columns(of: "Cafe\u{301} 👍🏽") == 7)
    #expect(DisplayWidth.columns(of: "ab"[...]) == 2)
  }
}
