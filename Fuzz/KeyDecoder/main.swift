import Milieu

@testable import MilieuTerminal

// Fuzzes the terminal input decoder with arbitrary bytes, split into reads at arbitrary points.
// No byte sequence may crash it, the way a read splits the bytes must not change the keys, it
// keeps no state after a flush but a paste under way, Ctrl-C always gets through, whatever came
// before, once a paste is over, and inside a paste nothing is a key, however the input pauses.

/// libFuzzer's entry point: checks one input, and traps when an invariant fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzInput(data, count: count)
  let splitSeed = input.byte()
  let bytes = input.remainingBytes()

  // All at once.
  var whole = KeyDecoder()
  let keys = whole.decode(bytes) + whole.flush()
  precondition(keys.count <= bytes.count, "\(keys.count) keys from \(bytes.count) bytes")
  precondition(!whole.hasPendingInput, "a flush left input pending")
  // Only a paste outlasts a flush, and its end marker ends it.
  _ = whole.decode(Array("\u{1B}[201~".utf8))
  precondition(whole == KeyDecoder(), "a flush left state behind")

  // In reads of 1 to 8 bytes, as the seed says.
  var pieces = KeyDecoder()
  var pieceKeys: [Key] = []
  var start = 0
  var step = Int(splitSeed)
  while start < bytes.count {
    let length = step % 8 + 1
    step = step / 8 + length * 7 + 1
    let end = min(bytes.count, start + length)
    pieceKeys += pieces.decode(bytes[start..<end])
    start = end
  }
  pieceKeys += pieces.flush()
  precondition(pieceKeys == keys, "splitting the reads changed the keys")

  // Ctrl-C after anything and the end of a paste is an interrupt, and nothing pending swallows
  // it.
  var interrupted = KeyDecoder()
  let afterInterrupt = interrupted.decode(bytes + Array("\u{1B}[201~".utf8) + [0x03])
  precondition(afterInterrupt.last == .interrupt, "Ctrl-C was swallowed: \(afterInterrupt)")
  precondition(!interrupted.hasPendingInput, "Ctrl-C left input pending")

  // Inside a paste, the same bytes are text and control characters, never keys, and a pause
  // between any two reads changes nothing.
  let inPaste = bytes.filter { $0 != 0x1B }
  var pasting = KeyDecoder()
  let pasted = pasting.decode(Array("\u{1B}[200~".utf8) + inPaste)
  var pausing = KeyDecoder()
  var pausedKeys = pausing.decode(Array("\u{1B}[200~".utf8))
  for (offset, byte) in inPaste.enumerated() {
    pausedKeys += pausing.decode([byte])
    if (offset + Int(splitSeed)) % 3 == 0 { pausedKeys += pausing.flush() }
  }
  precondition(pausedKeys == pasted, "a pause changed a paste: \(pausedKeys)")
  for key in pasted {
    switch key {
    case .pasted(let scalar):
      precondition(!DiagnosticText.isControlCharacter(scalar), "\(key)")
    case .pastedControl: break
    default: preconditionFailure("a paste gave the key \(key)")
    }
  }

  // After a flush and the end of any paste, a digit is a digit.
  precondition(whole.decode([UInt8(ascii: "7")]) == [.digit(7)], "a flush did not reset")
  return 0
}
