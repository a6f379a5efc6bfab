import MilieuAlerts
import Testing

@testable import MilieuTerminal

extension SerializedTerminalTests {
  @Suite("TerminalToastPresenter")
  struct TerminalToastPresenterTests {
    @Test("Each toast is one line, written when the host presents it; the host expires it")
    func lines() async throws {
      let terminal = try PipedTerminal()
      let host = ToastHost(presenter: TerminalToastPresenter(terminal: terminal.presenter))
      let saved = show(Toast("Saved", style: .success, duration: .milliseconds(1)), in: host)
      let failed = show(Toast("Sync failed", style: .error, duration: .milliseconds(1)), in: host)
      #expect(await saved.first() == .answered(.expired))
      #expect(await failed.first() == .answered(.expired))
      #expect(terminal.finish() == "✔ Saved\n✖ Sync failed\n")
    }
  }
}
