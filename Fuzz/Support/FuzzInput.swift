/// Reads structured values from the bytes libFuzzer hands a target, front to back.
///
/// Every read succeeds: past the end, numbers read as 0 and text as empty, so any input, even an
/// empty one, decodes to something. Small, deliberate encodings keep the fuzzer's mutations
/// meaningful: a length byte followed by that many bytes of text, a selector byte for a case.
struct FuzzInput {
  private let bytes: [UInt8]
  private var position = 0

  init(_ data: UnsafePointer<UInt8>?, count: Int) {
    if let data, count > 0 {
      bytes = Array(UnsafeBufferPointer(start: data, count: count))
    } else {
      bytes = []
    }
  }

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Whether every byte has been read.
  var isAtEnd: Bool { position >= bytes.count }

  /// The next byte, or 0 past the end.
  mutating func byte() -> UInt8 {
    guard position < bytes.count else { return 0 }
    defer { position += 1 }
    return bytes[position]
  }

  /// The next byte as a Boolean (its lowest bit).
  mutating func bool() -> Bool {
    byte() & 1 == 1
  }

  /// A number from 0 to `bound - 1`; `bound` must be positive.
  mutating func number(below bound: Int) -> Int {
    Int(byte()) % bound
  }

  /// A signed 16-bit number from the next two bytes.
  mutating func int16() -> Int {
    Int(Int16(bitPattern: UInt16(byte()) << 8 | UInt16(byte())))
  }

  /// The next `count` bytes, fewer at the end.
  mutating func bytes(_ count: Int) -> [UInt8] {
    let end = min(bytes.count, position + max(0, count))
    defer { position = end }
    return Array(bytes[min(position, end)..<end])
  }

  /// Every byte not read yet.
  mutating func remainingBytes() -> [UInt8] {
    bytes(bytes.count - position)
  }

  /// Text: a length byte, then that many bytes decoded as UTF-8 (invalid sequences become
  /// U+FFFD).
  ///
  /// When the length byte's top bit is set, the fragment is repeated: the next byte says how
  /// often, in 256 steps from 1 to `maximumRepetitions` times, so that text can cross any length
  /// limit while most inputs stay short and fast.
  mutating func text(maximumRepetitions: Int = 6_144) -> String {
    let header = byte()
    let fragment = String(decoding: bytes(Int(header & 0x7F)), as: UTF8.self)
    guard header & 0x80 != 0 else { return fragment }
    let repetitions = max(1, (Int(byte()) + 1) * maximumRepetitions / 256)
    return String(repeating: fragment.isEmpty ? "x" : fragment, count: repetitions)
  }
}
