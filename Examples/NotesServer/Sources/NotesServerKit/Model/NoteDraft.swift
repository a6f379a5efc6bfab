/// The body of a request that creates a note: `{"title": "…", "text": "…"}`.
public struct NoteDraft: Sendable, Hashable, Codable {
  /// The longest title accepted, in characters.
  public static let maximumTitleLength = 200

  /// The note's title: 1 to ``maximumTitleLength`` characters, not all spaces.
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

  /// Checks what JSON decoding cannot: that the title says something and is not too long.
  ///
  /// - Throws: ``APIError`` 422 naming the rule the draft breaks.
  public func validate() throws(APIError) {
    if title.allSatisfy(\.isWhitespace) {
      throw .unprocessableContent("a note's title must not be empty")
    }
    if title.count > Self.maximumTitleLength {
      throw .unprocessableContent(
        "a note's title has at most \(Self.maximumTitleLength) characters, not \(title.count)")
    }
  }
}
