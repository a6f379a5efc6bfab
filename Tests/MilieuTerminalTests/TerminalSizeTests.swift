import MilieuTestSupport
import Testing

@testable import MilieuTerminal

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
    let (read, write) = try makePipe()
    defer {
      close(read)
      close(write)
    }
    #expect(TerminalSize.measure(read) == nil)
    #expect(!TerminalMode.isTerminal(read))
  }
}
