import Testing

@testable import MilieuTerminal

@Suite("FrameRedrawer")
struct FrameRedrawerTests {
  @Test("The first frame is drawn as it is; the next goes back up and erases first")
  func redraw() {
    var frame = FrameRedrawer()
    #expect(frame.replace(with: ["┌──┐", "└──┘"], terminalColumns: 80) == "┌──┐\r\n└──┘")
    #expect(
      frame.replace(with: ["┌─┐", "│ │", "└─┘"], terminalColumns: 80)
        == "\r\u{1B}[1A\u{1B}[J┌─┐\r\n│ │\r\n└─┘")
    #expect(frame.replace(with: ["x"], terminalColumns: 80) == "\r\u{1B}[2A\u{1B}[Jx")
    #expect(frame.replace(with: ["y"], terminalColumns: 80) == "\r\u{1B}[Jy")
  }

  @Test("After the terminal narrows, re-wrapped rows are counted")
  func narrowed() {
    var frame = FrameRedrawer()
    _ = frame.replace(with: [String(repeating: "─", count: 40), "b"], terminalColumns: 40)
    // 2 lines of width 40 at 15 columns take 3 rows each.
    #expect(frame.replace(with: ["c"], terminalColumns: 15).hasPrefix("\r\u{1B}[5A\u{1B}[J"))
    #expect(frame.replace(with: ["d"], terminalColumns: 0).hasPrefix("\r\u{1B}[J"))
  }
}
