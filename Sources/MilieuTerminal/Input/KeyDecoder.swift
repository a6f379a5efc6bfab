import Milieu

/// Turns raw terminal input bytes into ``Key`` values, one read at a time.
///
/// A terminal in raw mode delivers keys as bytes, and one key may be several bytes (`ESC [ C` for
/// →) split across reads. `KeyDecoder` is an incremental, pure state machine: feed it whatever a
/// read returned with ``decode(_:)``; an incomplete sequence is kept for the next call. When
/// input stalls with something pending, call ``flush()``: a lone ESC then becomes ``Key/escape``
/// (inside a paste a stall changes nothing).
///
/// Recognised input:
///
/// | bytes | key |
/// |---|---|
/// | `ESC [` *parameters* `A`/`B`/`C`/`D`, `ESC O A`/`B`/`C`/`D` | ``Key/up``, ``Key/down``, ``Key/right``, ``Key/left`` |
/// | `ESC [` *parameters* `Z` | ``Key/shiftTab`` |
/// | `ESC [ H`, `ESC O H`, `ESC [ 1 ~`, `ESC [ 7 ~`, 0x01 | ``Key/home`` |
/// | `ESC [ F`, `ESC O F`, `ESC [ 4 ~`, `ESC [ 8 ~`, 0x05 | ``Key/end`` |
/// | `ESC [ 3 ~` | ``Key/delete`` |
/// | 0x7F, 0x08 | ``Key/backspace`` |
/// | 0x09 | ``Key/tab`` |
/// | 0x0D, 0x0A, 0x0D 0x0A, `ESC O M` | ``Key/enter`` |
/// | lone ESC (on ``flush()``), ESC ESC, ESC + control byte | ``Key/escape`` |
/// | `1` … `9` | ``Key/digit(_:)`` |
/// | other printable ASCII, a UTF-8 encoded scalar that is not a C0 or C1 control | ``Key/character(_:)`` |
/// | 0x03 | ``Key/interrupt`` |
/// | 0x04 | ``Key/endOfInput`` |
///
/// A bracketed paste — what a terminal sends between `ESC [ 200 ~` and `ESC [ 201 ~` once it is
/// asked to, so that pasted text cannot pass for keys — decodes as ``Key/pasted(_:)`` for each
/// character and ``Key/pastedControl(_:)`` for each key or control character inside it: a line
/// break or a tab in pasted text never presses Enter or Tab. Only the end marker ends a paste: a
/// paste that stalls — a slow terminal, a remote session — is still a paste when the rest of it
/// comes, so a ``flush()`` inside one changes nothing and ``hasPendingInput`` is `false` there.
/// A paste is bounded: past its first ``maximumPasteLength`` bytes, the rest of it up to the end
/// marker is dropped, so that a paste whose end never comes can never press a key.
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
  /// The number a sequence's first parameter may reach; a larger one counts as this.
  static let largestParameter = 10_000

  /// How many parameter and intermediate bytes an escape sequence may hold before it is
  /// reported as ``Key/unknown`` and the rest of it discarded.
  ///
  /// Real keys use at most a handful (`ESC [ 1 ; 5 C`); 16 leaves room for any of them.
  static let maximumSequenceLength = 16

  /// How many bytes of a bracketed paste are decoded; the rest of a longer one is dropped up to
  /// its end marker.
  ///
  /// Enough for the longest text a field takes: 16,384 Unicode scalars of four UTF-8 bytes.
  static let maximumPasteLength = 65_536

  private enum State: Sendable, Hashable {
    case ground
    case escape
    /// An escape sequence so far: its length, and its first parameter while it is all digits
    /// (`nil` once anything else came first).
    case sequence(isSS3: Bool, length: Int, parameter: Int?, parameterEnded: Bool)
    case discardingSequence
    /// A UTF-8 encoded scalar so far: the bytes still to come, the bits so far, and the
    /// smallest value its length may encode (anything less is an overlong encoding).
    case utf8(remaining: Int, value: UInt32, minimum: UInt32)
  }

  private var state = State.ground
  private var skipsLineFeed = false
  /// How many bytes of the bracketed paste under way have come, counting no further than one
  /// past ``maximumPasteLength``; `nil` outside a paste.
  private var pastedBytes: Int?

  /// Creates a decoder with nothing pending.
  init() {}

  /// Whether part of a key is waiting for more bytes — the moment to start the stall timer that
  /// ends in ``flush()``. Never inside a paste, where a stall ends nothing.
  var hasPendingInput: Bool {
    state != .ground && pastedBytes == nil
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
  /// unfinished UTF-8 character becomes ``Key/other``. Afterwards nothing is pending. Inside a
  /// paste nothing changes: what is pending there may be the start of the end marker.
  ///
  /// - Returns: At most one key.
  mutating func flush() -> [Key] {
    guard pastedBytes == nil else { return [] }
    var keys: [Key] = []
    switch state {
    case .ground, .discardingSequence: break
    case .escape: emit(.escape, into: &keys)
    case .sequence: emit(.unknown, into: &keys)
    case .utf8: emit(.other, into: &keys)
    }
    state = .ground
    skipsLineFeed = false
    return keys
  }

  /// Adds a decoded key, as text when it came inside a bracketed paste, or nothing once the
  /// paste is longer than ``maximumPasteLength``.
  private mutating func emit(_ key: Key, into keys: inout [Key]) {
    guard let pastedBytes else {
      keys.append(key)
      return
    }
    guard pastedBytes <= Self.maximumPasteLength else { return }
    switch key {
    // The only control characters a `.character` carries are the line and paragraph separators.
    case .character(let scalar) where DiagnosticText.isControlCharacter(scalar):
      keys.append(.pastedControl(" "))
    case .character(let scalar): keys.append(.pasted(scalar))
    case .digit(let digit): keys.append(.pasted(Unicode.Scalar(UInt8(0x30 + digit))))
    case .enter, .tab: keys.append(.pastedControl(" "))
    default: keys.append(.pastedControl(nil))
    }
  }

  private mutating func feed(_ byte: UInt8, into keys: inout [Key]) {
    if let count = pastedBytes, count <= Self.maximumPasteLength { pastedBytes = count + 1 }
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
          state = .sequence(isSS3: false, length: 0, parameter: nil, parameterEnded: false)
        case UInt8(ascii: "O"):
          state = .sequence(isSS3: true, length: 0, parameter: nil, parameterEnded: false)
        case 0x1B:
          emit(.escape, into: &keys)
        case 0x20...0x7F:
          emit(.other, into: &keys)
          state = .ground
        default:
          emit(.escape, into: &keys)
          state = .ground
          continue
        }
        return
      case .sequence(let isSS3, let length, let parameter, let parameterEnded):
        switch byte {
        case 0x40...0x7E:
          state = .ground
          finishSequence(isSS3: isSS3, final: byte, parameter: parameter, into: &keys)
        case 0x20...0x3F:
          if length + 1 >= Self.maximumSequenceLength {
            emit(.unknown, into: &keys)
            state = .discardingSequence
          } else {
            var parameter = parameter
            var parameterEnded = parameterEnded
            if !parameterEnded, (0x30...0x39).contains(byte) {
              let digit = Int(byte - 0x30)
              parameter = min(Self.largestParameter, (parameter ?? 0) * 10 + digit)
            } else {
              parameterEnded = true
            }
            state = .sequence(
              isSS3: isSS3, length: length + 1, parameter: parameter,
              parameterEnded: parameterEnded)
          }
        default:
          emit(.unknown, into: &keys)
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
      case .utf8(let remaining, let value, let minimum):
        guard byte & 0xC0 == 0x80 else {
          emit(.other, into: &keys)
          state = .ground
          continue
        }
        let value = value << 6 | UInt32(byte & 0x3F)
        if remaining == 1 {
          state = .ground
          if value >= minimum, let scalar = Unicode.Scalar(value), !(0x80...0x9F).contains(value) {
            emit(.character(scalar), into: &keys)
          } else {
            emit(.other, into: &keys)
          }
        } else {
          state = .utf8(remaining: remaining - 1, value: value, minimum: minimum)
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
      emit(.enter, into: &keys)
      skipsLineFeed = true
    case 0x0A: emit(.enter, into: &keys)
    case 0x09: emit(.tab, into: &keys)
    case 0x03: emit(.interrupt, into: &keys)
    case 0x04: emit(.endOfInput, into: &keys)
    case 0x01: emit(.home, into: &keys)
    case 0x05: emit(.end, into: &keys)
    case 0x08, 0x7F: emit(.backspace, into: &keys)
    case UInt8(ascii: "1")...UInt8(ascii: "9"):
      emit(.digit(Int(byte - UInt8(ascii: "0"))), into: &keys)
    case 0x20...0x7E: emit(.character(Unicode.Scalar(byte)), into: &keys)
    case 0xC2...0xDF: state = .utf8(remaining: 1, value: UInt32(byte & 0x1F), minimum: 0x80)
    case 0xE0...0xEF: state = .utf8(remaining: 2, value: UInt32(byte & 0x0F), minimum: 0x800)
    case 0xF0...0xF4: state = .utf8(remaining: 3, value: UInt32(byte & 0x07), minimum: 0x10000)
    default: emit(.other, into: &keys)
    }
  }

  /// Decodes a complete escape sequence; the bracketed paste markers change the mode and make
  /// no key.
  private mutating func finishSequence(
    isSS3: Bool, final: UInt8, parameter: Int?, into keys: inout [Key]
  ) {
    if !isSS3, final == UInt8(ascii: "~") {
      switch parameter {
      case 200:
        pastedBytes = pastedBytes ?? 0
        return
      case 201:
        pastedBytes = nil
        return
      default: break
      }
    }
    emit(
      isSS3 ? Self.ss3Key(final: final) : Self.csiKey(final: final, parameter: parameter),
      into: &keys)
  }

  private static func csiKey(final: UInt8, parameter: Int?) -> Key {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "Z"): .shiftTab
    case UInt8(ascii: "H"): .home
    case UInt8(ascii: "F"): .end
    case UInt8(ascii: "~"):
      switch parameter {
      case 1, 7: .home
      case 3: .delete
      case 4, 8: .end
      default: .unknown
      }
    default: .unknown
    }
  }

  private static func ss3Key(final: UInt8) -> Key {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "H"): .home
    case UInt8(ascii: "F"): .end
    case UInt8(ascii: "M"): .enter
    default: .unknown
    }
  }
}
