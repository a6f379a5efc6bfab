import MilieuTestSupport
import Testing

@testable import MilieuTerminal

@Suite("TextWrapper")
struct TextWrapperTests {
  @Test("Text breaks at spaces, and the spaces at a break disappear")
  func breaksAtSpaces() {
    #expect(
      TextWrapper.wrap("The notes will be removed.", width: 12) == [
        "The notes", "will be", "removed.",
      ])
    #expect(TextWrapper.wrap("a  b   c", width: 10) == ["a  b   c"])
    #expect(TextWrapper.wrap("aaaa   bbbb", width: 5) == ["aaaa", "bbbb"])
    #expect(TextWrapper.wrap("trailing   ", width: 20) == ["trailing"])
  }

  @Test("A paragraph's indent is kept when it fits")
  func indent() {
    #expect(TextWrapper.wrap("  indented text", width: 20) == ["  indented text"])
    #expect(TextWrapper.wrap("    word", width: 5) == ["word"])
  }

  @Test("Words longer than the width are hard-broken between clusters")
  func hardBreak() {
    #expect(TextWrapper.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    #expect(TextWrapper.wrap("ok abcdefghij", width: 4) == ["ok", "abcd", "efgh", "ij"])
    #expect(TextWrapper.wrap("日本語のテキスト", width: 5) == ["日本", "語の", "テキ", "スト"])
    #expect(TextWrapper.wrap("👍🏽👍🏽👍🏽", width: 4) == ["👍🏽👍🏽", "👍🏽"])
    #expect(
      TextWrapper.wrap("e\u{301}e\u{301}e\u{301}", width: 2) == ["e\u{301}e\u{301}", "e\u{301}"])
  }

  @Test("A cluster wider than the line gets a line of its own; tiny widths never loop")
  func tinyWidths() {
    #expect(TextWrapper.wrap("日本", width: 1) == ["日", "本"])
    #expect(TextWrapper.wrap("ab", width: 0) == ["a", "b"])
    #expect(TextWrapper.wrap("ab", width: -7) == ["a", "b"])
  }

  @Test("Clusters wider than 2 columns are hard-broken by their full width")
  func clustersWiderThanTwo() {
    #expect(TextWrapper.wrap("a🏽a🏽a🏽", width: 4) == ["a🏽", "a🏽", "a🏽"])
    #expect(TextWrapper.wrap("a🏽a🏽b", width: 7) == ["a🏽a🏽b"])
    #expect(TextWrapper.wrap("a🏽b", width: 2) == ["a🏽", "b"])
    #expect(TextWrapper.wrap("日🏽日🏽", width: 3) == ["日🏽", "日🏽"])
    #expect(TextWrapper.wrap("ok a🏽", width: 3) == ["ok", "a🏽"])
    #expect(TextWrapper.truncate("a🏽a🏽", width: 5) == "a🏽…")
    #expect(TextWrapper.truncate("a🏽", width: 3) == "a🏽")
    #expect(TextWrapper.truncate("a🏽b", width: 3) == "…")
  }

  @Test("With clusters up to 4 columns wide, only a lone cluster may overflow a line")
  func wideClustersFuzz() {
    var generator = SplitMix64(seed: 11)
    let pieces: [Character] = ["a", " ", "日", "👍🏽", "a\u{1F3FD}", "日\u{1F3FD}", "\u{1F3FD}"]
    for _ in 0..<1_000 {
      let text = randomText(of: pieces, upTo: 30, using: &generator)
      let width = Int.random(in: 1...8, using: &generator)
      let lines = TextWrapper.wrap(text, width: width)
      #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) <= width || $0.count == 1 })
      #expect(lines.joined().filter { $0 != " " } == text.filter { $0 != " " })
      #expect(DisplayWidth.columns(of: TextWrapper.truncate(text, width: width)) <= width)
    }
  }

  @Test("Line breaks start paragraphs, empty ones included")
  func paragraphs() {
    #expect(TextWrapper.wrap("one\ntwo\n\nthree", width: 10) == ["one", "two", "", "three"])
    #expect(TextWrapper.wrap("", width: 10) == [""])
    #expect(TextWrapper.wrap("\n", width: 10) == ["", ""])
    #expect(TextWrapper.wrap("a\r\nb", width: 10) == ["a", "b"])
  }

  @Test("Truncation ends with an ellipsis and respects wide characters")
  func truncate() {
    #expect(TextWrapper.truncate("Delete everything", width: 10) == "Delete ev…")
    #expect(TextWrapper.truncate("short", width: 10) == "short")
    #expect(TextWrapper.truncate("exact", width: 5) == "exact")
    #expect(TextWrapper.truncate("日本語", width: 4) == "日…")
    #expect(TextWrapper.truncate("abc", width: 1) == "…")
    #expect(TextWrapper.truncate("abc", width: 0) == "")
    #expect(TextWrapper.truncate("abc", width: -1) == "")
  }

  @Test("Padding reaches the width and never shortens")
  func pad() {
    #expect(TextWrapper.pad("OK", toWidth: 4) == "OK  ")
    #expect(TextWrapper.pad("日", toWidth: 3) == "日 ")
    #expect(TextWrapper.pad("long", toWidth: 2) == "long")
  }

  @Test("Wrapped lines fit and keep every non-space cluster, in order")
  func fuzz() {
    var generator = SplitMix64(seed: 7)
    let pieces: [Character] = ["a", "b", " ", " ", "日", "👍🏽", "e\u{301}", "-", "\n"]
    for _ in 0..<1_000 {
      let text = randomText(of: pieces, upTo: 60, using: &generator)
      let width = Int.random(in: 2...20, using: &generator)
      let lines = TextWrapper.wrap(text, width: width)
      #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) <= width })
      #expect(lines.joined().filter { $0 != " " } == text.filter { $0 != " " && $0 != "\n" })
    }
  }
}

/// A text of up to `maxLength` clusters, each drawn from `pieces`.
private func randomText(
  of pieces: [Character], upTo maxLength: Int, using generator: inout SplitMix64
) -> String {
  String(
    (0..<Int.random(in: 0...maxLength, using: &generator)).map { _ in
      pieces.randomElement(using: &generator) ?? "a"
    })
}
