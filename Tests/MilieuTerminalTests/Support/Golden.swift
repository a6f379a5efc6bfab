import MilieuTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Golden files under `Tests/MilieuTerminalTests/Golden/`, found next to this source file (not
/// as bundle resources), compared line by line with a readable diff on mismatch.
///
/// Escape sequences are stored visibly: every ESC byte is written as `␛` (U+241B), so a golden
/// file with colour reads like `␛[1mDelete 3 notes?␛[0m`. Set `MILIEU_UPDATE_GOLDENS=1` to
/// rewrite the files from the current output instead of comparing.
enum Golden {
  static let directory: String = {
    let path = String(#filePath)
    let support = path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
    let tests = support[..<(support.lastIndex(of: "/") ?? support.endIndex)]
    return tests + "/Golden/"
  }()

  /// Makes ESC bytes visible, as the golden files store them.
  static func visible(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{1B}" ? "␛" : $0 }))
  }

  static func check(
    _ lines: [String], against name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let actual = visible(lines.joined(separator: "\n")) + "\n"
    let path = directory + name
    if let update = getenv("MILIEU_UPDATE_GOLDENS"), String(cString: update) == "1" {
      #expect(writeFile(path, actual), "could not write \(path)", sourceLocation: sourceLocation)
      return
    }
    guard let expected = readFile(path) else {
      Issue.record(
        "Golden file \(name) is missing. Create it with: MILIEU_UPDATE_GOLDENS=1 swift test",
        sourceLocation: sourceLocation)
      return
    }
    if expected != actual {
      Issue.record(
        Comment(rawValue: diff(expected: expected, actual: actual, name: name)),
        sourceLocation: sourceLocation)
    }
  }

  /// A line-by-line diff: `-` lines are the golden file, `+` lines what was rendered.
  static func diff(expected: String, actual: String, name: String) -> String {
    let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
    var report = ["Golden file \(name) does not match (- golden, + rendered):"]
    for number in 0..<max(old.count, new.count) {
      let before = number < old.count ? String(old[number]) : nil
      let after = number < new.count ? String(new[number]) : nil
      let label = String(number + 1).leftPadded(to: 3)
      if before == after {
        report.append("  \(label)  \(before ?? "")")
      } else {
        if let before { report.append("- \(label)  \(before)") }
        if let after { report.append("+ \(label)  \(after)") }
      }
    }
    report.append("If the new rendering is right: MILIEU_UPDATE_GOLDENS=1 swift test")
    return report.joined(separator: "\n")
  }

  static func readFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return readAll(descriptor)
  }

  static func writeFile(_ path: String, _ text: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    String(repeating: " ", count: max(0, width - count)) + self
  }
}
