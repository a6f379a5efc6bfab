import HummingbirdTesting
import NotesServerKit
import Testing

/// A note's title is the client's text, and the live `notify` logs it: no title may write a
/// line of its own into the server's log, or act on the terminal that shows it.
@Suite("Log safety")
struct LogSafetyTests {
  /// A title that ends its own log line and forges another, in another user's name.
  static let forgedLine =
    "Standup\n2026-11-26T09:30:00+0000 info NotesServer: request.id=7 user=bob [NotesServerKit]"
    + " notify: bob deleted all 12 of their notes"

  @Test(
    arguments: StoreKind.all,
    [
      (forgedLine, "U+000A"), ("carriage\rreturn", "U+000D"), ("\u{1B}]0;pwned\u{07}", "U+001B"),
      ("bell\u{07}", "U+0007"), ("nul\u{0}byte", "U+0000"), ("tab\tstop", "U+0009"),
      ("delete\u{7F}", "U+007F"), ("next\u{85}line", "U+0085"), ("line\u{2028}separator", "U+2028"),
      ("invoice\u{202E}fdp.exe", "U+202E"),
    ])
  func aTitleWithAControlCharacterIsRefusedAndLogsNothing(
    store: StoreKind, example: (title: String, scalar: String)
  ) async throws {
    let (title, scalar) = example
    let log = LogLines()
    try await withNotesApp(store, notify: .logging, logger: log.logger(level: .trace)) {
      client, app in
      let response = try await client.create(NoteDraft(title: title), as: "alice")
      #expect(response.status == .unprocessableContent)
      #expect(
        try response.apiError().message
          == "a note's title is one line of plain text, without control characters such as line"
          + " breaks, tabs, escapes or bidi controls: it holds \(scalar)")
      #expect(try await app.store.count() == 0)
    }
    #expect(!log.text.contains("deleted all 12"))
  }

  @Test(
    arguments: StoreKind.all,
    [
      "", "   ", "\u{0}", "\u{0}\u{0}", "\u{200B}", "\u{2060}\u{FEFF}", "\u{3164}", " \u{200B}\t",
      "\u{FE0F}",
    ])
  func aTitleWithNothingVisibleIsEmpty(store: StoreKind, title: String) async throws {
    try await withNotesApp(store) { client, app in
      let response = try await client.create(NoteDraft(title: title), as: "alice")
      #expect(response.status == .unprocessableContent)
      #expect(
        try response.apiError().message
          == "a note's title must not be empty: spaces and invisible characters do not count")
      #expect(try await app.store.count() == 0)
    }
  }

  @Test(arguments: StoreKind.all)
  func aHostileTitleAlreadyStoredIsLoggedOnOneLineWithItsControlsEscaped(store: StoreKind)
    async throws
  {
    let log = LogLines()
    try await withNotesApp(store, notify: .logging, logger: log.logger()) { client, app in
      // A note that reached the store without the API's rules, as one imported from elsewhere.
      // (No NUL: PostgreSQL refuses one in text, and SQLite ends the text there.)
      let alice = try AuthenticatedUser(headerValue: "alice")
      let title = Self.forgedLine + "\r\u{1B}]0;pwned\u{07}\u{7F}\u{202E}\"quoted\"\\"
      let note = try await app.store.add(NoteDraft(title: title), owner: alice)

      let deleted = try await client.send(.delete, "/notes/\(note.id)", as: "alice")
      #expect(deleted.status == .noContent)
    }
    let lines = log.lines
    #expect(lines.count == 1, "the title wrote lines of its own: \(lines)")
    let escaped =
      #"notify: alice deleted note 1, "Standup\u{A}2026-11-26T09:30:00+0000 info NotesServer:"#
      + #" request.id=7 user=bob [NotesServerKit] notify: bob deleted all 12 of their notes"#
      + #"\u{D}\u{1B}]0;pwned\u{7}\u{7F}\u{202E}\"quoted\"\\""#
    #expect(lines.first?.hasSuffix(escaped) == true, "logged: \(lines)")
    #expect(log.text.unicodeScalars.allSatisfy { $0 == "\n" || $0.value >= 0x20 && $0 != "\u{7F}" })
  }
}
