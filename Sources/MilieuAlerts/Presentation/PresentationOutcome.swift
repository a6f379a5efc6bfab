/// How a presented item was resolved: answered, dismissed, or dropped with a reason.
///
/// Every item shown through a host resolves exactly once, whatever happens to it.
///
/// ```swift
/// switch await showAlert.ask(title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()]) {
/// case .answered(let button) where button.role == .destructive: deleteNotes()
/// case .answered, .dismissed: break
/// case .dropped(let reason): log("not shown: \(reason)")
/// }
/// ```
public enum PresentationOutcome<Answer: Sendable & Equatable & CustomStringConvertible>: Sendable,
  Equatable, CustomStringConvertible
{
  /// The user, or the item's expiry, chose an answer: for an alert, the button tapped.
  case answered(Answer)
  /// The item was dismissed without an answer; for an alert this runs the cancel button's
  /// action.
  case dismissed
  /// The item was never answered, for the reason given.
  case dropped(DropReason)

  /// `tapped Delete`, `dismissed`, or `dropped (no host is installed)`.
  public var description: String {
    switch self {
    case .answered(let answer): answer.description
    case .dismissed: "dismissed"
    case .dropped(let reason): "dropped (\(reason))"
    }
  }
}

/// Why an item was dropped without being answered.
public enum DropReason: Sendable, Equatable, CustomStringConvertible {
  /// No host is installed on the path to the root.
  case noHost
  /// The host that would have presented the item no longer exists.
  case hostDeallocated
  /// An item with the same deduplication key was already shown or pending.
  case duplicate(of: PresentationID)
  /// The host's queue was full; its policy's overflow rule dropped this item.
  case queueFull(limit: Int)
  /// A newer item replaced this one, under a ``PresentationPolicy/WhenBusy/replace`` policy.
  case replaced(by: PresentationID)
  /// Another item was being shown, under a ``PresentationPolicy/WhenBusy/dropNew`` policy.
  case busy
  /// The task awaiting the outcome was cancelled, so the item was withdrawn.
  case cancelled
  /// The code handling the item let it go without answering (a custom action that never
  /// completed).
  case unanswered

  /// A phrase such as `the queue is full, with a limit of 64`, with no parentheses of its own:
  /// an outcome puts it in some, `dropped (the queue is full, with a limit of 64)`.
  public var description: String {
    switch self {
    case .noHost: "no host is installed"
    case .hostDeallocated: "the host was deallocated"
    case .duplicate(let id): "a duplicate of \(id)"
    case .queueFull(let limit): "the queue is full, with a limit of \(limit)"
    case .replaced(let id): "replaced by \(id)"
    case .busy: "another item was being shown"
    case .cancelled: "the awaiting task was cancelled"
    case .unanswered: "nobody answered it"
    }
  }
}
