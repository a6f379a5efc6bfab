/// Turns raw terminal input bytes into ``Key`` values, one read at a time.
///
/// A terminal in raw mode delivers keys as bytes, and one key may be several bytes (`ESC [ C` for
/// →) split across reads. `KeyDecoder` is an incremental, pure state machine: feed it whatever a
/// read returned with ``decode(_:)``; an incomplete sequence is kept for the next call. When
/// input stalls with something pending, call ``flush()``: a lone ESC then becomes ``Key/escape``.
///
/// Recognised input:
///
/// | bytes | key |
/// |---|---|
/// | `ESC [` *parameters* `A`/`B`/`C`/`D`, `ESC O A`/`B`/`C`/`D` | ``Key/up``, ``Key/down``, ``Key/right``, ``Key/left`` |
/// | `ESC [` *parameters* `Z` | ``Key/shiftTab`` |
/// | 0x09 | ``Key/tab`` |
/// | 0x0D, 0x0A, 0x0D 0x0A, `ESC O M` | ``Key/enter`` |
/// | lone ESC (on ``flush()``), ESC ESC, ESC + control byte | ``Key/escape`` |
/// | `1` … `9` | ``Key/digit(_:)`` |
/// | 0x03 | ``Key/interrupt`` |
/// | 0x04 | ``Key/endOfInput`` |
///
/// Malformed input never crashes the decoder and never swallows what follows it:
///
/// - A control sequence (CSI) or SS3 sequence that meets a byte that cannot continue it ends as
///   ``Key/unknown``, and that byte is decoded afresh — so `ESC [ 1` followed by Ctrl-C gives
///   ``Key/unknown`` then ``Key/interrupt``.
/// - A sequence longer than ``maximumSequenceLength`` bytes ends as ``Key/unknown`` at once; the
///   rest of it, up to its final byte, is discarded without being stored.
/// - A multibyte UTF-8 character is one ``Key/other``; a stray or cut-off UTF-8 byte is also
///   ``Key/other``.
/// - ESC followed by a printable byte (how terminals send Alt-key) is one ``Key/other``.
///
/// The decoder keeps at most a few integers of state, whatever the input.
struct KeyDecoder: Sendable, Hashable {
  /// How many parameter and intermediate bytes an escape sequence may hold before it is
  /// reported as ``Key/unknown`` and the rest of it discarded.
  ///
  /// Real keys use at most a handful (`ESC [ 1 ; 5 C`); 16 leaves room for any of them.
  static let maximumSequenceLength = 16

  private enum State: Sendable, Hashable {
    case ground
    case escape
    case sequence(isSS3: Bool, length: Int)
    case discardingSequence
    case utf8(remaining: Int)
  }

  private var state = State.ground
  private var skipsLineFeed = false

  /// Creates a decoder with nothing pending.
  init() {}

  /// Whether part of a key is waiting for more bytes — the moment to start the stall timer that
  /// ends in ``flush()``.
  var hasPendingInput: Bool {
    state != .ground
  }

  /// Decodes the next bytes of input, keeping an incomplete key for the next call.
  ///
  /// - Parameter bytes: Bytes in the order they were read; any values at all.
  /// - Returns: The keys completed by these bytes, in order.
  /// - Complexity: O(*n*) in the number of bytes.
  mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    var keys: [Key] = []
    for byte in bytes { feed(byte, into: &keys) }
    return keys
  }

  /// Ends whatever is pending because no more input arrived in time.
  ///
  /// A lone ESC becomes ``Key/escape``; an unfinished escape sequence becomes ``Key/unknown``; an
  /// unfinished UTF-8 character becomes ``Key/other``. Afterwards nothing is pending.
  ///
  /// - Returns: At most one key.
  mutating func flush() -> [Key] {
    defer {
      state = .ground
      skipsLineFeed = false
    }
    switch state {
    case .ground, .discardingSequence: return []
    case .escape: return [.escape]
    case .sequence: return [.unknown]
    case .utf8: return [.other]
    }
  }

  private mutating func feed(_ byte: UInt8, into keys: inout [Key]) {
    // A byte that ends a pending sequence abnormally is decoded again from the ground state, so
    // this loop runs at most twice.
    while true {
      switch state {
      case .ground:
        feedGround(byte, into: &keys)
        return
      case .escape:
        switch byte {
        case UInt8(ascii: "["):
          state = .sequence(isSS3: false, length: 0)
        case UInt8(ascii: "O"):
          state = .sequence(isSS3: true, length: 0)
        case 0x1B:
          keys.append(.escape)
        case 0x20...0x7F:
          keys.append(.other)
          state = .ground
        default:
          keys.append(.escape)
          state = .ground
          continue
        }
        return
      case .sequence(let isSS3, let length):
        switch byte {
        case 0x40...0x7E:
          keys.append(isSS3 ? Self.ss3Key(final: byte) : Self.csiKey(final: byte))
          state = .ground
        case 0x20...0x3F:
          if length + 1 >= Self.maximumSequenceLength {
            keys.append(.unknown)
            state = .discardingSequence
          } else {
            state = .sequence(isSS3: isSS3, length: length + 1)
          }
        default:
          keys.append(.unknown)
          state = .ground
          continue
        }
        return
      case .discardingSequence:
        switch byte {
        case 0x40...0x7E:
          state = .ground
        case 0x20...0x3F:
          break
        default:
          state = .ground
          continue
        }
        return
      case .utf8(let remaining):
        guard byte & 0xC0 == 0x80 else {
          keys.append(.other)
          state = .ground
          continue
        }
        if remaining == 1 {
          keys.append(.other)
          state = .ground
        } else {
          state = .utf8(remaining: remaining - 1)
        }
        return
      }
    }
  }

  private mutating func feedGround(_ byte: UInt8, into keys: inout [Key]) {
    if skipsLineFeed {
      skipsLineFeed = false
      if byte == 0x0A { return }
    }
    switch byte {
    case 0x1B: state = .escape
    case 0x0D:
      keys.append(.enter)
      skipsLineFeed = true
    case 0x0A: keys.append(.enter)
    case 0x09: keys.append(.tab)
    case 0x03: keys.append(.interrupt)
    case 0x04: keys.append(.endOfInput)
    case UInt8(ascii: "1")...UInt8(ascii: "9"): keys.append(.digit(Int(byte - UInt8(ascii: "0"))))
    case 0xC2...0xDF: state = .utf8(remaining: 1)
    case 0xE0...0xEF: state = .utf8(remaining: 2)
    case 0xF0...0xF4: state = .utf8(remaining: 3)
    default: keys.append(.other)
    }
  }

  private static func csiKey(final: UInt8) -> Key {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "Z"): .shiftTab
    default: .unknown
    }
  }

  private static func ss3Key(final: UInt8) -> Key {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "M"): .enter
    default: .unknown
    }
  }
}
