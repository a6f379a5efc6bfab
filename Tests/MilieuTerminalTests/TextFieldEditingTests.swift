import MilieuAlerts
import Testing

@testable import MilieuTerminal

@Suite("Typing into text fields")
struct TextFieldEditingTests {
  /// Feeds every key, and returns the last action.
  @discardableResult
  private func press(_ keys: [Key], on focus: inout AlertFocus) -> KeyAction {
    keys.reduce(KeyAction.none) { _, key in focus.handle(key) }
  }

  private func typing(_ text: String) -> [Key] {
    text.unicodeScalars.map { Key.character($0) }
  }

  @Test("An alert with fields starts in its first field, the cursor after its text")
  func startsInTheFirstField() {
    let focus = AlertFocus(alert: Fixtures.signIn)
    #expect(focus.focusedField == 0 && focus.focusedButton == nil)
    #expect(focus.fields.map(\.cursor) == [15, 0])
    #expect(focus.texts == ["ada@example.com", ""])
  }

  @Test("Characters and digits are typed at the cursor; the editing keys edit")
  func editing() {
    var focus = AlertFocus(alert: Fixtures.withFields(Fixtures.deleteNotes, ["Name"]))
    #expect(press(typing("Roadmap") + [.digit(2)], on: &focus) == .redraw)
    #expect(focus.texts == ["Roadmap2"])
    press([.backspace, .home, .delete, .character("r"), .end, .left, .character("-")], on: &focus)
    #expect(focus.texts == ["roadma-p"])
    #expect(focus.fields[0].cursor == 7)
    // Keys that change nothing say so: nothing to redraw.
    press([.end], on: &focus)
    #expect(focus.handle(.right) == KeyAction.none)
    #expect(focus.handle(.delete) == KeyAction.none)
    press([.home], on: &focus)
    #expect(focus.handle(.backspace) == KeyAction.none)
    #expect(focus.handle(.left) == KeyAction.none)
    #expect(focus.handle(.other) == KeyAction.none)
  }

  @Test("Characters join the character before them as they would in the text")
  func combiningMarks() {
    var focus = AlertFocus(alert: Fixtures.withFields(Fixtures.deleteNotes, ["Name"]))
    press([.character("e"), .character("\u{301}"), .character("x")], on: &focus)
    #expect(focus.texts == ["e\u{301}x"])
    #expect(focus.fields[0].count == 2 && focus.fields[0].cursor == 2)
    press([.backspace, .backspace], on: &focus)
    #expect(focus.texts == [""])
  }

  @Test("Tab, Shift-Tab and the vertical arrows go through the fields, then the buttons")
  func focusCycle() {
    var focus = AlertFocus(alert: Fixtures.signIn)
    #expect(focus.handle(.tab) == .redraw)
    #expect(focus.focusedField == 1)
    #expect(focus.handle(.down) == .redraw)
    #expect(focus.focusedField == nil && focus.focusedButton == 0)
    #expect(focus.handle(.tab) == .redraw)
    #expect(focus.focusedButton == 1)
    // → and ← stay among the buttons; digits choose a button once one is focused.
    #expect(focus.handle(.right) == .redraw)
    #expect(focus.focusedButton == 0)
    #expect(focus.handle(.tab) == .redraw)
    #expect(focus.handle(.tab) == .redraw)
    #expect(focus.focusedField == 0)
    #expect(focus.handle(.shiftTab) == .redraw)
    #expect(focus.focusedButton == 1)
    #expect(focus.handle(.up) == .redraw)
    #expect(focus.focusedButton == 0)
    #expect(focus.handle(.digit(2)) == .tap(1))
  }

  @Test("Enter goes to the next field, and in the last one chooses the first default button")
  func enterSubmits() {
    var focus = AlertFocus(alert: Fixtures.signIn)
    #expect(focus.handle(.enter) == .redraw)
    #expect(focus.focusedField == 1)
    press(typing("hunter2"), on: &focus)
    #expect(focus.handle(.enter) == .tap(0))
    #expect(focus.texts == ["ada@example.com", "hunter2"])
  }

  @Test("Without a default button, Enter in the last field focuses the buttons, never destroys")
  func enterWithoutADefaultButton() {
    var focus = AlertFocus(alert: Fixtures.withFields(Fixtures.deleteNotes, ["Reason"]))
    #expect(focus.handle(.enter) == .redraw)
    #expect(focus.focusedButton == 1)  // Cancel
    let destructiveOnly = TerminalAlert(
      title: "Erase?", buttons: [TerminalButton("Erase", role: .destructive)])
    var only = AlertFocus(alert: Fixtures.withFields(destructiveOnly, ["Type ERASE"]))
    #expect(only.handle(.enter) == KeyAction.none)
    #expect(only.focusedField == 0)
  }

  @Test("Esc, Ctrl-D and Ctrl-C work from a field as from a button")
  func leaving() {
    var focus = AlertFocus(alert: Fixtures.signIn)
    #expect(focus.handle(.escape) == .tap(1))
    var other = AlertFocus(alert: Fixtures.signIn)
    #expect(other.handle(.endOfInput) == .tap(1))
    #expect(other.handle(.interrupt) == .interrupt)
  }

  @Test("A secure field is typed into at its end only; the cursor keys do nothing there")
  func secureField() {
    var focus = AlertFocus(alert: Fixtures.signIn)
    press([.tab] + typing("hunter"), on: &focus)
    #expect(focus.handle(.left) == KeyAction.none)
    #expect(focus.handle(.home) == KeyAction.none)
    #expect(focus.handle(.delete) == KeyAction.none)
    press(typing("22") + [.backspace], on: &focus)
    #expect(focus.texts[1] == "hunter2")
    #expect(focus.fields[1].cursor == 7)
  }

  @Test("A paste is typed; its control characters are left out or made spaces, and told")
  func pasting() {
    var focus = AlertFocus(alert: Fixtures.withFields(Fixtures.deleteNotes, ["Name"]))
    let paste: [Key] = [
      .pasted("a"), .pastedControl(" "), .pasted("b"), .pastedControl(nil), .pasted("1"),
    ]
    press(paste, on: &focus)
    #expect(focus.texts == ["a b1"])
    #expect(
      focus.notice
        == "The pasted text held 2 control characters: line breaks and tabs became spaces, the "
        + "others were left out.")
    // The next key other than a paste takes the notice away, and says to redraw.
    #expect(focus.handle(.other) == .redraw)
    #expect(focus.notice == nil)
    // A paste while a button is focused types nothing.
    var onButton = AlertFocus(alert: Fixtures.deleteNotes)
    #expect(onButton.handle(.pasted("x")) == KeyAction.none)
  }

  @Test("A paste that pauses types its line break as a space and never taps a button")
  func pasteThatPauses() {
    var focus = AlertFocus(
      alert: Fixtures.withFields(
        TerminalAlert(
          title: "Rename",
          buttons: [TerminalButton("Rename"), TerminalButton("Cancel", role: .cancel)]),
        ["Name"]))
    var decoder = KeyDecoder()
    // The paste stalls for longer than a poll: the terminal flushes the decoder meanwhile.
    let keys =
      decoder.decode(Array("\u{1B}[200~rm -rf ~/no".utf8)) + decoder.flush()
      + decoder.decode(Array("tes\r\u{1B}[201~".utf8))
    let actions = keys.map { focus.handle($0) }
    #expect(actions.allSatisfy { $0 == .redraw }, "\(actions)")
    #expect(focus.texts == ["rm -rf ~/notes "])
    #expect(focus.focusedField == 0)
  }

  @Test("A field takes at most 4,096 characters, and says so")
  func fullField() {
    var focus = AlertFocus(
      alert: Fixtures.withFields(
        Fixtures.deleteNotes, ["Body"], text: String(repeating: "x", count: 4_095)))
    #expect(focus.handle(.character("y")) == .redraw)
    #expect(focus.notice == nil)
    #expect(focus.handle(.character("z")) == .redraw)
    #expect(focus.notice == "A field holds at most 4096 characters.")
    #expect(focus.texts[0].count == 4_096 && focus.texts[0].hasSuffix("y"))
  }

  @Test("What is typed into a secure field is never printed or dumped, nor how long it is")
  func secureTextIsNeverPrinted() {
    var alert = Fixtures.signIn
    alert.textFields[1].text = "hunter1"
    var focus = AlertFocus(alert: alert)
    press([.tab, .backspace] + typing("2"), on: &focus)
    #expect(focus.texts == ["ada@example.com", "hunter2"])
    var dumped = ""
    dump(focus, to: &dumped)
    dump(alert, to: &dumped)
    for text in [
      "\(focus)", String(reflecting: focus), "\(focus.fields)", "\(alert)", dumped,
    ] {
      #expect(!text.contains("hunter") && !text.contains("cursor: 7"), "\(text)")
    }
    #expect("\(focus.fields[1])" == "Password: (hidden)")
    #expect("\(focus.fields[0])".contains("ada@example.com"))
  }

  @Test("A control character is never typed, even one that reaches the editor")
  func controlCharactersAreRefused() {
    var editor = TextFieldEditor(AlertTextField("Name"))
    for scalar in ["\u{1B}", "\u{7F}", "\u{85}", "\u{2028}", "\n"] as [Unicode.Scalar] {
      let inserted = editor.insert(scalar)
      #expect(!inserted)
    }
    #expect(editor.text.isEmpty)
  }
}
