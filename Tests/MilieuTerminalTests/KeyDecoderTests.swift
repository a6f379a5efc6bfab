import MilieuTestSupport
import Testing

@testable import MilieuTerminal

/// One key's bytes and what they decode to (after a final flush).
struct KeyCase: Sendable, CustomTestStringConvertible {
  var name: String
  var bytes: [UInt8]
  var keys: [Key]

  init(_ name: String, _ bytes: [UInt8], _ keys: [Key]) {
    self.name = name
    self.bytes = bytes
    self.keys = keys
  }

  var testDescription: String { name }

  static let esc: UInt8 = 0x1B
  static let all: [KeyCase] =
    [
      KeyCase("← CSI", [esc, 0x5B, 0x44], [.left]),
      KeyCase("→ CSI", [esc, 0x5B, 0x43], [.right]),
      KeyCase("↑ CSI", [esc, 0x5B, 0x41], [.up]),
      KeyCase("↓ CSI", [esc, 0x5B, 0x42], [.down]),
      KeyCase("← SS3", [esc, 0x4F, 0x44], [.left]),
      KeyCase("→ SS3", [esc, 0x4F, 0x43], [.right]),
      KeyCase("↑ SS3", [esc, 0x4F, 0x41], [.up]),
      KeyCase("↓ SS3", [esc, 0x4F, 0x42], [.down]),
      KeyCase("Ctrl-→ ESC [1;5C", Array("\u{1B}[1;5C".utf8), [.right]),
      KeyCase("Shift-← ESC [1;2D", Array("\u{1B}[1;2D".utf8), [.left]),
      KeyCase("Tab", [0x09], [.tab]),
      KeyCase("Shift-Tab", [esc, 0x5B, 0x5A], [.shiftTab]),
      KeyCase("Enter CR", [0x0D], [.enter]),
      KeyCase("Enter LF", [0x0A], [.enter]),
      KeyCase("Enter CR LF", [0x0D, 0x0A], [.enter]),
      KeyCase("Keypad Enter", [esc, 0x4F, 0x4D], [.enter]),
      KeyCase("Esc", [esc], [.escape]),
      KeyCase("Esc Esc", [esc, esc], [.escape, .escape]),
      KeyCase("Ctrl-C", [0x03], [.interrupt]),
      KeyCase("Ctrl-D", [0x04], [.endOfInput]),
      KeyCase("Delete ESC [3~", Array("\u{1B}[3~".utf8), [.delete]),
      KeyCase("Ctrl-Delete ESC [3;5~", Array("\u{1B}[3;5~".utf8), [.delete]),
      KeyCase("Home ESC [H", Array("\u{1B}[H".utf8), [.home]),
      KeyCase("Home SS3 H", Array("\u{1B}OH".utf8), [.home]),
      KeyCase("Home ESC [1~", Array("\u{1B}[1~".utf8), [.home]),
      KeyCase("Home ESC [7~", Array("\u{1B}[7~".utf8), [.home]),
      KeyCase("Ctrl-A", [0x01], [.home]),
      KeyCase("End ESC [F", Array("\u{1B}[F".utf8), [.end]),
      KeyCase("End SS3 F", Array("\u{1B}OF".utf8), [.end]),
      KeyCase("End ESC [4~", Array("\u{1B}[4~".utf8), [.end]),
      KeyCase("End ESC [8~", Array("\u{1B}[8~".utf8), [.end]),
      KeyCase("Ctrl-E", [0x05], [.end]),
      KeyCase("Page Up ESC [5~", Array("\u{1B}[5~".utf8), [.unknown]),
      KeyCase("F1 SS3 P", [esc, 0x4F, 0x50], [.unknown]),
      KeyCase("Alt-x", [esc, 0x78], [.other]),
      KeyCase("letter", [0x61], [.character("a")]),
      KeyCase("space", [0x20], [.character(" ")]),
      KeyCase("zero", [0x30], [.character("0")]),
      KeyCase("é", Array("é".utf8), [.character("é")]),
      KeyCase("日", Array("日".utf8), [.character("日")]),
      KeyCase("👍", Array("👍".utf8), [.character("👍")]),
      KeyCase("a C1 control, encoded", [0xC2, 0x85], [.other]),
      KeyCase("an overlong encoding", [0xE0, 0x80, 0xAF], [.other]),
      KeyCase("a surrogate", [0xED, 0xA0, 0x80], [.other]),
      KeyCase("DEL", [0x7F], [.backspace]),
      KeyCase("Ctrl-H", [0x08], [.backspace]),
      KeyCase("Ctrl-B", [0x02], [.other]),
      KeyCase(
        "a bracketed paste", Array("\u{1B}[200~a1\r\n\t\u{1B}[31mé\u{3}\u{1B}[201~".utf8),
        [
          .pasted("a"), .pasted("1"), .pastedControl(" "), .pastedControl(" "),
          .pastedControl(nil), .pasted("é"), .pastedControl(nil),
        ]),
    ] + (1...9).map { KeyCase("digit \($0)", [UInt8(0x30 + $0)], [.digit($0)]) }
}

@Suite("KeyDecoder")
struct KeyDecoderTests {
  static func decodeAll(_ chunks: [[UInt8]]) -> [Key] {
    var decoder = KeyDecoder()
    var keys = chunks.flatMap { decoder.decode($0) }
    keys += decoder.flush()
    #expect(!decoder.hasPendingInput)
    return keys
  }

  @Test("Every key decodes", arguments: KeyCase.all)
  func decodesKey(key: KeyCase) {
    #expect(Self.decodeAll([key.bytes]) == key.keys)
  }

  @Test("Every key decodes the same when split at every byte boundary", arguments: KeyCase.all)
  func splitReads(key: KeyCase) {
    for split in 0...key.bytes.count {
      let chunks = [Array(key.bytes[..<split]), Array(key.bytes[split...])]
      #expect(Self.decodeAll(chunks) == key.keys, "split at \(split)")
    }
    #expect(Self.decodeAll(key.bytes.map { [$0] }) == key.keys, "one byte per read")
  }

  @Test("All keys in a row decode the same however the stream is split")
  func allKeysInARow() {
    // A lone ESC followed by more input is not a lone ESC, so leave those cases out here; and
    // separate keys with a letter so that CR followed by LF stays two keys.
    let cases = KeyCase.all.filter { $0.bytes.last != KeyCase.esc }
    let stream = cases.flatMap { $0.bytes + [UInt8(ascii: "a")] }
    let expected = cases.flatMap { $0.keys + [.character("a")] }
    #expect(Self.decodeAll([stream]) == expected)
    for split in 0...stream.count {
      let chunks = [Array(stream[..<split]), Array(stream[split...])]
      #expect(Self.decodeAll(chunks) == expected, "split at \(split)")
    }
    #expect(Self.decodeAll(stream.map { [$0] }) == expected)
  }

  @Test("Nothing completes while a sequence is pending; flush ends it")
  func pending() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.hasPendingInput)
    #expect(decoder.decode([0x5B]) == [])
    #expect(decoder.decode([0x43]) == [.right])
    #expect(!decoder.hasPendingInput)
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.flush() == [.escape])
    #expect(decoder.flush() == [])
    #expect(decoder.decode(Array("\u{1B}[1;".utf8)) == [])
    #expect(decoder.flush() == [.unknown])
    #expect(decoder.decode([0xE6, 0x97]) == [])
    #expect(decoder.flush() == [.other])
  }

  @Test("A sequence with parameters never swallows the keys after it")
  func parametersDoNotSwallow() {
    #expect(Self.decodeAll([Array("\u{1B}[1;5C1\t".utf8)]) == [.right, .digit(1), .tab])
    #expect(Self.decodeAll([Array("\u{1B}[99999999~2".utf8)]) == [.unknown, .digit(2)])
  }

  @Test("A paste is text until its end marker, and a stray end marker is nothing")
  func pastes() {
    #expect(Self.decodeAll([Array("\u{1B}[201~1".utf8)]) == [.digit(1)])
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("\u{1B}[200~1".utf8)) == [.pasted("1")])
    #expect(decoder.decode([0x0D, 0x03]) == [.pastedControl(" "), .pastedControl(nil)])
    #expect(decoder.decode(Array("\u{1B}[201~".utf8)) == [])
    #expect(decoder == KeyDecoder())
    #expect(decoder.decode([0x31, 0x03]) == [.digit(1), .interrupt])
  }

  @Test("A paste that pauses is still a paste: its line break is never Enter")
  func pasteSplitByAPause() {
    var decoder = KeyDecoder()
    let start = "rm -rf ~/no".unicodeScalars.map(Key.pasted)
    #expect(decoder.decode(Array("\u{1B}[200~rm -rf ~/no".utf8)) == start)
    // The input pauses: the terminal loop flushes, as it does at every poll timeout.
    #expect(decoder.flush() == [])
    #expect(!decoder.hasPendingInput)
    #expect(
      decoder.decode(Array("tes\r".utf8)) == [
        .pasted("t"), .pasted("e"), .pasted("s"), .pastedControl(" "),
      ])
    // A pause inside a pasted character, or inside the end marker, loses nothing either.
    #expect(decoder.decode([0xC3]) == [])
    #expect(decoder.flush() == [])
    #expect(decoder.decode([0xA9] + Array("\u{1B}[20".utf8)) == [.pasted("é")])
    #expect(decoder.flush() == [])
    #expect(decoder.decode(Array("1~\r".utf8)) == [.enter])
  }

  @Test("A paste that never ends is cut at its bound; nothing after it is a key")
  func pasteThatNeverEnds() {
    var decoder = KeyDecoder()
    let line = Array("a\r".utf8)
    let lines = (0..<KeyDecoder.maximumPasteLength).flatMap { _ in line }
    let keys = decoder.decode(Array("\u{1B}[200~".utf8) + lines) + decoder.flush()
    #expect(keys.count == KeyDecoder.maximumPasteLength)
    #expect(keys.allSatisfy { $0 == .pasted("a") || $0 == .pastedControl(" ") })
    // Whatever comes next, however long the pause, belongs to the paste until its end marker.
    #expect(decoder.decode(line + [0x03]) + decoder.flush() == [])
    #expect(decoder.decode(Array("\u{1B}[201~\r".utf8)) == [.enter])
  }

  @Test("A control byte inside a sequence ends it and is decoded itself")
  func controlInsideSequence() {
    #expect(Self.decodeAll([[0x1B, 0x5B, 0x31, 0x03]]) == [.unknown, .interrupt])
    #expect(Self.decodeAll([[0x1B, 0x5B, 0x0D]]) == [.unknown, .enter])
    #expect(Self.decodeAll([[0x1B, 0x5B, 0x1B, 0x5B, 0x43]]) == [.unknown, .right])
    #expect(Self.decodeAll([[0x1B, 0x4F, 0x09]]) == [.unknown, .tab])
    #expect(Self.decodeAll([[0x1B, 0x09]]) == [.escape, .tab])
    #expect(Self.decodeAll([[0x1B, 0xC3, 0xA9]]) == [.escape, .character("é")])
  }

  @Test("An overlong sequence is cut at the cap, reported once, and the rest discarded")
  func overlongSequence() {
    let parameters = [UInt8](repeating: 0x31, count: 1_000)
    let bytes = [0x1B, 0x5B] + parameters + [0x43] + Array("2".utf8)
    #expect(Self.decodeAll([bytes]) == [.unknown, .digit(2)])
    let cut = [0x1B, 0x5B] + parameters + [0x03]
    #expect(Self.decodeAll([cut]) == [.unknown, .interrupt])
    let longest =
      [0x1B, 0x5B] + [UInt8](repeating: 0x3B, count: KeyDecoder.maximumSequenceLength - 1) + [0x43]
    #expect(Self.decodeAll([longest]) == [.right])
  }

  @Test("Carriage return then line feed is one Enter; other pairs are two")
  func lineEndings() {
    #expect(Self.decodeAll([[0x0D, 0x0A]]) == [.enter])
    #expect(Self.decodeAll([[0x0D], [0x0A]]) == [.enter])
    #expect(Self.decodeAll([[0x0D, 0x0D]]) == [.enter, .enter])
    #expect(Self.decodeAll([[0x0A, 0x0A]]) == [.enter, .enter])
    #expect(Self.decodeAll([[0x0D, 0x31, 0x0A]]) == [.enter, .digit(1), .enter])
  }

  @Test("Invalid and cut-off UTF-8 is consumed as other without losing the next key")
  func invalidUTF8() {
    #expect(Self.decodeAll([[0xFF, 0xC0, 0x80, 0x31]]) == [.other, .other, .other, .digit(1)])
    #expect(Self.decodeAll([[0xE6, 0x97, 0x31]]) == [.other, .digit(1)])
    #expect(Self.decodeAll([[0xF0, 0x9F, 0x91]]) == [.other])
    #expect(Self.decodeAll([[0xF0, 0x9F, 0x91, 0x8D, 0x8D]]) == [.character("👍"), .other])
  }

  @Test("Random bytes never crash, decode the same in any chunks, and always make progress")
  func fuzz() {
    var generator = SplitMix64(seed: 0x5EED)
    // Bias towards the bytes that drive the state machine.
    let interesting: [UInt8] = [
      0x1B, 0x5B, 0x4F, 0x3B, 0x31, 0x43, 0x0D, 0x0A, 0xE6, 0x97, 0x80, 0xF0,
    ]
    let bytes: [UInt8] = (0..<100_000).map { _ in
      Bool.random(using: &generator)
        ? interesting.randomElement(using: &generator) ?? 0
        : UInt8.random(in: 0...255, using: &generator)
    }

    var whole = KeyDecoder()
    let expected = whole.decode(bytes) + whole.flush()
    #expect(expected.count <= bytes.count)

    var chunked = KeyDecoder()
    var keys: [Key] = []
    var offset = 0
    while offset < bytes.count {
      let size = Int.random(in: 1...64, using: &generator)
      let end = min(bytes.count, offset + size)
      keys += chunked.decode(bytes[offset..<end])
      offset = end
      // Progress: whatever came before, Ctrl-C is always recognised at once.
      var probe = chunked
      #expect(probe.decode([0x03]).last == .interrupt)
    }
    keys += chunked.flush()
    #expect(keys == expected)
    #expect(!chunked.hasPendingInput)
  }
}
