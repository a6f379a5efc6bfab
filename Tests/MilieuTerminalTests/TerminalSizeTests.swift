import MilieuTerminal
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("TerminalSize")
struct TerminalSizeTests {
  @Test("The measured width wins, then COLUMNS, then 80")
  func fallback() {
    #expect(TerminalSize.columns(measured: 120, columnsVariable: "100") == 120)
    #expect(TerminalSize.columns(measured: nil, columnsVariable: "100") == 100)
    #expect(TerminalSize.columns(measured: 0, columnsVariable: "100") == 100)
    #expect(TerminalSize.columns(measured: nil, columnsVariable: "wide") == 80)
    #expect(TerminalSize.columns(measured: nil, columnsVariable: "-4") == 80)
    #expect(TerminalSize.columns(measured: nil, columnsVariable: nil) == 80)
  }

  @Test("A pipe has no size")
  func pipeHasNoSize() throws {
    var descriptors: [Int32] = [0, 0]
    try #require(pipe(&descriptors) == 0)
    defer { for descriptor in descriptors { close(descriptor) } }
    #expect(TerminalSize.measure(descriptors[0]) == nil)
    #expect(!TerminalMode.isTerminal(descriptors[0]))
  }
}
