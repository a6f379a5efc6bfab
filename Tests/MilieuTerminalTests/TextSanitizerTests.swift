import MilieuTestSupport
import Testing

@testable import MilieuTerminal

@Suite("TextSanitizer")
struct TextSanitizerTests {
  @Test(
    "Escape sequences are shown with a visible ^[ and never emitted",
    arguments: [
      ("\u{1B}[31mred\u{1B}[0m", "^[[31mred^[[0m"),
      ("\u{1B}]0;pwned\u{07}", "^[]0;pwned^G"),
      ("\u{1B}[2J\u{1B}[H", "^[[2J^[[H"),
      ("\u{1B}c", "^[c"),
      ("a\u{1B}", "a^["),
    ])
  func escapeSequences(input: String, expected: String) {
    #expect(TextSanitizer.sanitize(input, mode: .singleLine) == expected)
    #expect(TextSanitizer.sanitize(input, mode: .multiline) == expected)
  }

  @Test("C0 controls use caret notation and DEL is ^?")
  func controlCharacters() {
    #expect(
      TextSanitizer.sanitize("\u{0}\u{1}\u{7}\u{8}\u{1F}\u{7F}", mode: .singleLine)
        == "^@^A^G^H^_^?")
    #expect(TextSanitizer.sanitize("\u{0B}\u{0C}", mode: .multiline) == "^K^L")
  }

  @Test("C1 controls, CSI and NEL included, are shown as code points")
  func c1Controls() {
    #expect(TextSanitizer.sanitize("a\u{9B}31mb", mode: .singleLine) == "a<U+009B>31mb")
    #expect(
      TextSanitizer.sanitize("\u{80}\u{85}\u{9F}", mode: .multiline) == "<U+0080><U+0085><U+009F>")
  }

  @Test(
    "Bidi controls are neutralised",
    arguments: [
      0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068,
      0x2069,
    ]
  )
  func bidiControls(value: UInt32) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let hex = String(value, radix: 16, uppercase: true)
    let padded = String(repeating: "0", count: 4 - hex.count) + hex
    let text = "file\(Character(scalar))txt.exe"
    #expect(TextSanitizer.sanitize(text, mode: .singleLine) == "file<U+\(padded)>txt.exe")
    #expect(TextSanitizer.needsNeutralising(scalar))
  }

  @Test("Line breaks are \\n in multiline mode and spaces in single-line mode")
  func lineBreaks() {
    let text = "a\nb\r\nc\rd\u{2028}e\u{2029}f"
    #expect(TextSanitizer.sanitize(text, mode: .multiline) == "a\nb\nc\nd\ne\nf")
    #expect(TextSanitizer.sanitize(text, mode: .singleLine) == "a b c d e f")
    #expect(TextSanitizer.sanitize("\r\r\n\n", mode: .multiline) == "\n\n\n")
  }

  @Test("A tab becomes one space")
  func tabs() {
    #expect(TextSanitizer.sanitize("a\tb", mode: .multiline) == "a b")
  }

  @Test("Ordinary text, emoji and combining marks pass through unchanged")
  func passThrough() {
    for text in ["Delete 3 notes?", "Ünïcödé", "日本語", "👍🏽👨‍👩‍👧", "e\u{301}", "^[ is literal", ""] {
      #expect(TextSanitizer.sanitize(text, mode: .singleLine) == text)
    }
  }

  @Test("No dangerous scalar survives, whatever the input")
  func fuzz() {
    var generator = SplitMix64(seed: 42)
    let interesting: [UInt32] =
      Array(0...0xA0) + [0x061C, 0x200E, 0x2028, 0x202E, 0x2066, 0x2069, 0x301, 0x1F44D]
    for _ in 0..<2_000 {
      var scalars = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 0...20, using: &generator) {
        let value = interesting.randomElement(using: &generator) ?? 0
        if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
      }
      let text = String(scalars)
      for mode in [TextSanitizer.Mode.singleLine, .multiline] {
        let safe = TextSanitizer.sanitize(text, mode: mode)
        #expect(!safe.unicodeScalars.contains { $0 != "\n" && TextSanitizer.needsNeutralising($0) })
        if mode == .singleLine { #expect(!safe.contains("\n")) }
      }
    }
  }
}
