import MilieuAlerts
import Testing

@testable import MilieuTerminal

@Suite("Drawing text fields")
struct TextFieldRenderingTests {
  let renderer = AlertRenderer()

  /// The focus state after typing `text` into the focused field.
  private func typed(_ text: String, into alert: TerminalAlert) -> AlertFocus {
    var focus = AlertFocus(alert: alert)
    for scalar in text.unicodeScalars { _ = focus.handle(.character(scalar)) }
    return focus
  }

  @Test(
    "An alert with text fields matches its golden file",
    arguments: [(40, false), (80, true)])
  func golden(width: Int, color: Bool) {
    let focus = typed("!", into: Fixtures.signIn)
    let lines = renderer.render(
      Fixtures.signIn, width: width, color: color, focus: focus, maximumHeight: nil)
    Golden.check(lines, against: "fields-w\(width)-\(color ? "color" : "mono").txt")
  }

  @Test("A field longer than the box scrolls to keep the cursor in view")
  func longFieldGolden() {
    let alert = Fixtures.withFields(
      Fixtures.deleteNotes, ["Reason"],
      text: "Moved to the archive folder, where old notes are kept for a year")
    var focus = AlertFocus(alert: alert)
    var frames: [String] = []
    for keys in [[], [Key.home], [.right, .right, .right], Array(repeating: Key.right, count: 30)] {
      for key in keys { _ = focus.handle(key) }
      let lines = renderer.render(
        alert, width: 40, color: false, focus: focus, maximumHeight: nil)
      frames += lines.filter { $0.contains("Reason") } + [""]
    }
    Golden.check(frames, against: "fields-scrolling-w40-mono.txt")
  }

  @Test(
    "Every line of a box with fields is exactly as wide as the box",
    arguments: [-5, 0, 10, 16, 25, 40, 80, 200])
  func linesHaveEqualWidth(width: Int) {
    for text in ["", "日本語のテキスト", String(repeating: "long text ", count: 40), "e\u{301}"] {
      for color in [false, true] {
        var focus = typed(
          text,
          into: Fixtures.withFields(Fixtures.threeButtons, ["Name", "Ünïcødé label that is long"]))
        for _ in 0..<3 {
          let lines = renderer.render(
            Fixtures.withFields(Fixtures.threeButtons, ["Name", "Ünïcødé label that is long"]),
            width: width, color: color, focus: focus, maximumHeight: nil)
          let widths = Set(lines.map { DisplayWidth.columns(of: Self.withoutStyles($0)) })
          #expect(widths.count == 1, "\(width) \(color) \(text.prefix(10))")
          _ = focus.handle(.left)
          _ = focus.handle(.tab)
        }
      }
    }
  }

  @Test("A secure field shows nothing of what is typed, not even how much")
  func secureFieldShowsNothing() {
    let alert = Fixtures.withFields(Fixtures.deleteNotes, ["Password"], isSecure: true)
    let short = renderer.render(
      alert, width: 60, color: false, focus: typed("a", into: alert), maximumHeight: nil)
    let long = renderer.render(
      alert, width: 60, color: false, focus: typed(String(repeating: "a", count: 300), into: alert),
      maximumHeight: nil)
    #expect(short == long)
    let field = short.first { $0.contains("Password") } ?? ""
    let inside = field.drop { $0 != "[" }
    #expect(field.hasPrefix("│ Password [▏ ") && inside.allSatisfy { "[▏ ]│".contains($0) })
  }

  @Test(
    "The cursor is a ▏ without colour and a reversed cell with it; only the focused field has one")
  func cursor() {
    let field = TextFieldEditor(AlertTextField("Name", text: "abc"))
    #expect(
      AlertRenderer.fieldContent(field, isFocused: true, width: 6, color: false) == "abc▏  ")
    #expect(
      AlertRenderer.fieldContent(field, isFocused: false, width: 6, color: false) == "abc   ")
    #expect(
      AlertRenderer.fieldContent(field, isFocused: true, width: 6, color: true)
        == "abc\u{1B}[7m \u{1B}[0m  ")
  }

  @Test("Text a terminal would act on is drawn neutralised in a field")
  func neutralised() {
    let field = TextFieldEditor(
      AlertTextField("Name", text: "a\u{202E}b"))
    #expect(
      AlertRenderer.fieldContent(field, isFocused: false, width: 12, color: false)
        == "a<U+202E>b  ")
  }

  @Test("A notice is drawn under the fields")
  func notice() {
    let alert = Fixtures.withFields(Fixtures.deleteNotes, ["Name"])
    var focus = AlertFocus(alert: alert)
    _ = focus.handle(.pastedControl(nil))
    let lines = renderer.render(alert, width: 80, color: false, focus: focus, maximumHeight: nil)
    #expect(lines.contains { $0.contains("The pasted text held 1 control character") })
  }

  @Test("A box too tall for the terminal keeps its fields and buttons")
  func tallBoxKeepsFields() {
    let lines = renderer.render(
      Fixtures.signIn, width: 40, color: false, focus: AlertFocus(alert: Fixtures.signIn),
      maximumHeight: 8)
    #expect(lines.count == 8)
    #expect(lines.contains { $0.contains("Email") } && lines.contains { $0.contains("Sign In") })
  }

  @Test("Plain text asks each field on a line of its own")
  func plainPrompts() {
    let fields = Fixtures.signIn.textFields
    #expect(renderer.plainPrompt(for: fields[0], width: 80) == "Email [ada@example.com]: ")
    #expect(renderer.plainPrompt(for: fields[1], width: 80) == "Password (not shown): ")
    let empty = AlertTextField("Name\u{1B}")
    #expect(renderer.plainPrompt(for: empty, width: 80) == "Name^[: ")
  }

  /// `line` without the renderer's own styles.
  static func withoutStyles(_ line: String) -> String {
    var result = ""
    var index = line.startIndex
    while index < line.endIndex {
      if line[index] == "\u{1B}", let end = line[index...].firstIndex(of: "m") {
        index = line.index(after: end)
      } else {
        result.append(line[index])
        index = line.index(after: index)
      }
    }
    return result
  }
}
