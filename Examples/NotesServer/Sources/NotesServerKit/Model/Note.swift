import Hummingbird

/// A note: a title and some text, owned by one user.
public struct Note: Sendable, Hashable, Codable, ResponseEncodable {
  /// The note's id, unique in its store.
  public let id: Int
  /// The note's title.
  public let title: String
  /// The note's text.
  public let text: String
  /// The name of the user who created it.
  public let owner: String

  /// Creates a note.
  ///
  /// - Parameters:
  ///   - id: The note's id, unique in its store.
  ///   - title: The note's title.
  ///   - text: The note's text.
  ///   - owner: The name of the user who created it.
  public init(id: Int, title: String, text: String, owner: String) {
    self.id = id
    self.title = title
    self.text = text
    self.owner = owner
  }
}
