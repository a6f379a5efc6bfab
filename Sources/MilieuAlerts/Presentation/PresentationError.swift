/// Why a host refused an answer. A refused answer changes nothing.
///
/// ```swift
/// do {
///   try host.tap(button, of: alert)
/// } catch {
///   print(error)  // Alert #12 "Delete?" is not the one shown (#13 is); the tap changes nothing.
/// }
/// ```
public enum PresentationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The item is not the one the host shows: it was already answered, replaced, or never shown.
  case notCurrent(PresentationID, title: String, current: PresentationID?)
  /// The answer does not belong to the item, such as a button the alert does not have.
  case invalidAnswer(String, item: PresentationID, title: String)

  /// The reason, with what to do about it.
  public var description: String {
    switch self {
    case .notCurrent(let id, let title, let current):
      let shown = current.map { "\($0) is" } ?? "nothing is"
      return
        "\(id) \"\(title)\" is not the one shown (\(shown)); it was already answered, "
        + "replaced or withdrawn, so the answer changes nothing. Answer the host's current item."
    case .invalidAnswer(let answer, let id, let title):
      return
        "\(id) \"\(title)\" has no \(answer); the answer changes nothing. "
        + "Answer with one of the item's own buttons."
    }
  }
}
