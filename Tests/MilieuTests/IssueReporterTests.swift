import Testing

@testable import Milieu

@Suite struct IssueReporterTests {
  /// A message quoting hostile text (an escape sequence that would retitle the window, a line
  /// break that would start a forged line) is written as one inert line.
  @Test func standardErrorWritesOneNeutralisedLine() {
    let issue = EnvironmentIssue(
      "no host for \"\u{1B}]0;pwned\u{07}\"\nwarning: forged",
      at: CallSite(fileID: "App/Main.swift", filePath: "/App/Main.swift", line: 3, column: 1))
    let line = IssueReporter.standardErrorLine(for: issue)
    #expect(line == "warning: App/Main.swift:3: no host for \"^[]0;pwned^G\" warning: forged\n")
    #expect(!line.unicodeScalars.dropLast().contains { $0.value < 0x20 || $0.value == 0x7F })
  }
}
