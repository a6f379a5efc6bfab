import Testing

@testable import MilieuTerminal

@Suite("LineAnswer")
struct LineAnswerTests {
  @Test(
    "Numbers and titles name buttons, ignoring case and surrounding whitespace",
    arguments: [
      ("1", 0), ("2", 1), (" 2 \r", 1), ("02", 1), ("Delete", 0), ("delete", 0), ("  CANCEL\t", 1),
      ("cancel\n", 1),
    ])
  func valid(line: String, index: Int) {
    #expect(LineAnswer.parse(line, for: Fixtures.deleteNotes) == .button(index))
  }

  @Test("Numbers follow display order")
  func displayOrder() {
    #expect(LineAnswer.parse("1", for: Fixtures.threeButtons) == .button(1))
    #expect(LineAnswer.parse("3", for: Fixtures.threeButtons) == .button(0))
  }

  @Test(
    "Anything else is invalid, with a message listing the valid answers",
    arguments: [
      "", "   ", "0", "3", "-1", "+1", "1.0", "99999999999999999999999", "del", "Delete!", "\u{1B}",
    ])
  func invalid(line: String) {
    #expect(
      LineAnswer.parse(line, for: Fixtures.deleteNotes)
        == .invalid(message: "Please answer with a number from 1 to 2 or one of: Delete, Cancel."))
  }

  @Test("The message reads well for one button and lists titles neutralised")
  func messages() {
    let one = TerminalAlert(title: "", buttons: [TerminalButton("OK", role: .cancel)])
    #expect(LineAnswer.parse("x", for: one) == .invalid(message: "Please answer with 1 or OK."))
    let hostile = TerminalAlert(
      title: "", buttons: [TerminalButton("\u{1B}[2JYes"), TerminalButton("No")])
    #expect(
      LineAnswer.parse("x", for: hostile)
        == .invalid(message: "Please answer with a number from 1 to 2 or one of: ^[[2JYes, No."))
    #expect(LineAnswer.parse("^[[2JYes", for: hostile) == .button(0))
    #expect(LineAnswer.parse("\u{1B}[2JYes", for: hostile) == .button(0))
  }

  @Test("A number wins over a title that looks like a number")
  func numberPrecedence() {
    let alert = TerminalAlert(title: "", buttons: [TerminalButton("2"), TerminalButton("1")])
    #expect(LineAnswer.parse("1", for: alert) == .button(0))
  }

  @Test("An alert without buttons is dismissed by any line")
  func noButtons() {
    let alert = TerminalAlert(title: "Done", buttons: [])
    #expect(LineAnswer.parse("", for: alert) == .dismiss)
    #expect(LineAnswer.parse("anything", for: alert) == .dismiss)
  }
}
