import Testing

@testable import MilieuTerminal

@Suite("ToastRenderer")
struct ToastRendererTests {
  @Test(
    "Each style has its symbol and colour",
    arguments: [
      (TerminalToast.Style.info, "ℹ", "34"), (.success, "✔", "32"), (.warning, "⚠", "33"),
      (.error, "✖", "31"),
    ])
  func styles(style: TerminalToast.Style, symbol: String, color: String) {
    let toast = TerminalToast("Saved 3 notes", style: style)
    #expect(ToastRenderer.render(toast, width: 80, color: false) == "\(symbol) Saved 3 notes")
    #expect(
      ToastRenderer.render(toast, width: 80, color: true)
        == "\u{1B}[\(color)m\(symbol)\u{1B}[0m Saved 3 notes")
  }

  @Test("A toast is one line cut to the width")
  func width() {
    let toast = TerminalToast("Line one\nline two \u{1B}[2J", style: .warning)
    #expect(ToastRenderer.render(toast, width: 80, color: false) == "⚠ Line one line two ^[[2J")
    #expect(ToastRenderer.render(toast, width: 12, color: false) == "⚠ Line one…")
    for width in [Int.min, -1, 0, 1, 3, 4] {
      let line = ToastRenderer.render(toast, width: width, color: false)
      #expect(DisplayWidth.columns(of: line) == ToastRenderer.minimumWidth)
    }
  }
}
