import Testing

@testable import MilieuTerminal

@Suite("ColorPolicy")
struct ColorPolicyTests {
  @Test("Automatic colour needs a terminal, no NO_COLOR and a capable TERM")
  func automatic() {
    let policy = ColorPolicy.automatic
    #expect(policy.allowsColor(outputIsTerminal: true, noColor: nil, term: "xterm-256color"))
    #expect(policy.allowsColor(outputIsTerminal: true, noColor: "", term: nil))
    #expect(!policy.allowsColor(outputIsTerminal: false, noColor: nil, term: "xterm"))
    #expect(!policy.allowsColor(outputIsTerminal: true, noColor: "1", term: "xterm"))
    #expect(!policy.allowsColor(outputIsTerminal: true, noColor: "false", term: "xterm"))
    #expect(!policy.allowsColor(outputIsTerminal: true, noColor: nil, term: "dumb"))
  }

  @Test("Always and never are explicit and override NO_COLOR")
  func explicit() {
    #expect(ColorPolicy.always.allowsColor(outputIsTerminal: false, noColor: "1", term: "dumb"))
    #expect(!ColorPolicy.never.allowsColor(outputIsTerminal: true, noColor: nil, term: "xterm"))
  }
}
