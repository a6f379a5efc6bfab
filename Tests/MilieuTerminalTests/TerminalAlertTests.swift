import Testing

@testable import MilieuTerminal

@Suite("TerminalAlert")
struct TerminalAlertTests {
  @Test("Cancel buttons are displayed last; the others keep their order")
  func displayOrder() {
    #expect(Fixtures.threeButtons.displayOrder == [1, 2, 0])
    #expect(Fixtures.deleteNotes.displayOrder == [0, 1])
    #expect(TerminalAlert(title: "", buttons: []).displayOrder == [])
    let twoCancels = TerminalAlert(
      title: "",
      buttons: [
        TerminalButton("A", role: .cancel), TerminalButton("B"), TerminalButton("C", role: .cancel),
      ])
    #expect(twoCancels.displayOrder == [1, 0, 2])
    #expect(twoCancels.cancelButtonIndex == 0)
  }

  @Test("Initial focus prefers a default button, then cancel, so Enter never destroys")
  func initialFocus() {
    #expect(Fixtures.threeButtons.initialFocus == 1)
    #expect(Fixtures.deleteNotes.initialFocus == 1)
    let onlyDestructive = TerminalAlert(
      title: "", buttons: [TerminalButton("Erase", role: .destructive)])
    #expect(onlyDestructive.initialFocus == nil)
    #expect(TerminalAlert(title: "", buttons: []).initialFocus == nil)
  }
}
