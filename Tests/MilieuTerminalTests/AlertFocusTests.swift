import Testing

@testable import MilieuTerminal

@Suite("AlertFocus")
struct AlertFocusTests {
  @Test("Focus starts on the initial button")
  func startsOnInitialFocus() {
    #expect(AlertFocus(alert: Fixtures.deleteNotes).focusedButton == 1)
    #expect(AlertFocus(alert: Fixtures.deleteNotes, focusedButton: 0).focusedButton == 0)
    #expect(AlertFocus(alert: Fixtures.deleteNotes, focusedButton: 5).focusedButton == nil)
  }

  /// Every list of one to three buttons made of the three roles: 39 alerts.
  static let everyMixOfRoles: [[TerminalButton.Role]] = {
    var mixes: [[TerminalButton.Role]] = [[]]
    var all: [[TerminalButton.Role]] = []
    for _ in 1...3 {
      mixes = mixes.flatMap { mix in
        [TerminalButton.Role.default, .cancel, .destructive].map { mix + [$0] }
      }
      all += mixes
    }
    return all
  }()

  @Test("A bare Enter never chooses a destructive button", arguments: everyMixOfRoles)
  func enterNeverDestroys(roles: [TerminalButton.Role]) {
    let alert = TerminalAlert(
      title: "Erase?",
      buttons: roles.enumerated().map { TerminalButton("B\($0.offset)", role: $0.element) })
    var focus = AlertFocus(alert: alert)
    let action = focus.handle(.enter)
    let safe = roles.indices.filter { roles[$0] != .destructive }
    if safe.isEmpty {
      // Nothing is focused: Enter does nothing until a digit or a move.
      #expect(focus.focusedButton == nil)
      #expect(action == KeyAction.none)
    } else {
      // The first default button, else the cancel button.
      let expected = roles.firstIndex(of: .default) ?? roles.firstIndex(of: .cancel)
      #expect(action == .tap(expected ?? -1))
      #expect(roles[expected ?? 0] != .destructive)
    }
  }

  @Test(
    "→, Tab and ↓ move forward in display order and wrap around",
    arguments: [Key.right, .tab, .down])
  func forward(key: Key) {
    // Display order of threeButtons: Save (1), Discard (2), Cancel (0).
    var focus = AlertFocus(alert: Fixtures.threeButtons, focusedButton: 1)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 2)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 0)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 1)
    #expect(focus.focusedButton == 1)
  }

  @Test("←, Shift-Tab and ↑ move backward and wrap around", arguments: [Key.left, .shiftTab, .up])
  func backward(key: Key) {
    var focus = AlertFocus(alert: Fixtures.threeButtons, focusedButton: 1)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 0)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 2)
    #expect(focus.handle(key) == .redraw)
    #expect(focus.focusedButton == 1)
  }

  @Test("Moving from no focus goes to the first or last button")
  func movingFromNoFocus() {
    var forward = AlertFocus(alert: Fixtures.threeButtons, focusedButton: nil)
    #expect(forward.handle(.tab) == .redraw)
    #expect(forward.focusedButton == 1)
    var backward = AlertFocus(alert: Fixtures.threeButtons, focusedButton: nil)
    #expect(backward.handle(.left) == .redraw)
    #expect(backward.focusedButton == 0)
  }

  @Test("Enter chooses the focused button")
  func enter() {
    var focus = AlertFocus(alert: Fixtures.threeButtons)
    _ = focus.handle(.right)
    #expect(focus.handle(.enter) == .tap(2))
    var unfocused = AlertFocus(alert: Fixtures.threeButtons, focusedButton: nil)
    #expect(unfocused.handle(.enter) == KeyAction.none)
  }

  @Test("A digit chooses the button shown with that number and focuses it")
  func digits() {
    var focus = AlertFocus(alert: Fixtures.threeButtons)
    #expect(focus.handle(.digit(3)) == .tap(0))
    #expect(focus.focusedButton == 0)
    #expect(focus.handle(.digit(1)) == .tap(1))
    #expect(focus.handle(.digit(4)) == KeyAction.none)
    #expect(focus.handle(.digit(9)) == KeyAction.none)
  }

  @Test(
    "Esc and Ctrl-D choose the cancel button, or dismiss without one",
    arguments: [Key.escape, .endOfInput])
  func cancel(key: Key) {
    var withCancel = AlertFocus(alert: Fixtures.threeButtons)
    #expect(withCancel.handle(key) == .tap(0))
    let noCancel = TerminalAlert(
      title: "", buttons: [TerminalButton("Retry"), TerminalButton("Quit")])
    var withoutCancel = AlertFocus(alert: noCancel)
    #expect(withoutCancel.handle(key) == .dismiss)
  }

  @Test("Ctrl-C interrupts; other keys do nothing")
  func otherKeys() {
    var focus = AlertFocus(alert: Fixtures.deleteNotes)
    #expect(focus.handle(.interrupt) == .interrupt)
    #expect(focus.handle(.other) == KeyAction.none)
    #expect(focus.handle(.unknown) == KeyAction.none)
    #expect(focus.focusedButton == 1)
  }

  @Test("An alert without buttons: moves do nothing, Enter and Esc dismiss")
  func noButtons() {
    var focus = AlertFocus(alert: TerminalAlert(title: "Done", buttons: []))
    #expect(focus.focusedButton == nil)
    #expect(focus.handle(.tab) == KeyAction.none)
    #expect(focus.handle(.left) == KeyAction.none)
    #expect(focus.handle(.digit(1)) == KeyAction.none)
    #expect(focus.handle(.enter) == .dismiss)
    #expect(focus.handle(.escape) == .dismiss)
  }
}
