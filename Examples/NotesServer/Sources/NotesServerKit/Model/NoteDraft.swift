/// The body of a request that creates a note: `{"title": "…", "text": "…"}`.
public struct NoteDraft: Sendable, Hashable, Codable {
  /// The longest title accepted, in characters.
  public static let maximumTitleLength = 200
  /// The most Unicode scalars a title may hold: a character can be heaped with any number of
  /// combining marks, and this bounds what the character limit does not.
  public static let maximumTitleScalars = 1_000

  /// The note's title: one line of plain text, 1 to ``maximumTitleLength`` characters (and at
  /// most ``maximumTitleScalars`` Unicode scalars), with something visible in it.
  public var title: String
  /// The note's text; may be empty.
  public var text: String

  /// Creates a draft.
  ///
  /// - Parameters:
  ///   - title: The note's title.
  ///   - text: The note's text.
  public init(title: String, text: String = "") {
    self.title = title
    self.text = text
  }

  private enum CodingKeys: String, CodingKey {
    case title, text
  }

  /// Decodes a draft; a missing `text` is empty.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for a missing or mistyped `title`, or a mistyped `text`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decode(String.self, forKey: .title)
    text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
  }

  /// Checks what JSON decoding cannot: that the title shows something, is one line of plain
  /// text, and is not too long, and that the text can be kept as it is.
  ///
  /// A title of only spaces and invisible characters (a NUL, a zero-width space, a variation
  /// selector) is empty. A title holding a control character (a line break, a tab, an escape, a
  /// bidi control) is refused: it could end or forge a log line, or act on the terminal that
  /// shows it. A text holding a NUL is refused whole, since a PostgreSQL store cannot keep
  /// one, and a client that reads text as a C string would get it cut there.
  ///
  /// - Throws: ``APIError`` 400 for a text holding a NUL; 422 naming the rule the title breaks.
  public func validate() throws(APIError) {
    if text.utf8.contains(0), let nul = text.firstIndex(of: "\u{0}") {
      throw .badRequest(
        "a note's text must not hold a NUL character (U+0000), which the store cannot keep: the"
          + " first comes after \(text.distance(from: text.startIndex, to: nul)) characters;"
          + " send the text without it")
    }
    let scalars = title.unicodeScalars
    if scalars.allSatisfy(ClientText.isInvisible) {
      throw .unprocessableContent(
        "a note's title must not be empty: spaces and invisible characters do not count")
    }
    if let control = scalars.first(where: ClientText.isControl) {
      throw .unprocessableContent(
        "a note's title is one line of plain text, without control characters such as line"
          + " breaks, tabs, escapes or bidi controls: it holds \(ClientText.codePoint(control))")
    }
    let scalarCount = scalars.count
    if scalarCount > Self.maximumTitleScalars {
      throw .unprocessableContent(
        "a note's title has at most \(Self.maximumTitleScalars) Unicode scalars (each accent or"
          + " joiner counts), not \(scalarCount)")
    }
    let count = title.count
    if count > Self.maximumTitleLength {
      throw .unprocessableContent(
        "a note's title has at most \(Self.maximumTitleLength) characters, not \(count)")
    }
  }
}
