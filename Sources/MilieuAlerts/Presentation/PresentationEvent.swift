/// Something that happened to an item in a host, for logging, analytics and accessibility
/// announcements.
///
/// ```swift
/// for await event in host.events() {
///   if case .presented(let alert) = event { announce(alert.title) }
/// }
/// ```
public enum PresentationEvent<Item: Presentable>: Sendable {
  /// The item arrived and waits to be shown, behind the item shown. An item shown at once
  /// (nothing else was shown, or it replaced the item shown) is not enqueued: its first event is
  /// ``presented(_:)``.
  case enqueued(Item)
  /// The item is now the one shown.
  case presented(Item)
  /// The item was answered: for an alert, a button was tapped.
  case answered(Item, Item.Answer)
  /// The item was dismissed without an answer.
  case dismissed(Item)
  /// The item was dropped for the reason given.
  case dropped(Item, DropReason)

  /// The item the event is about.
  public var item: Item {
    switch self {
    case .enqueued(let item), .presented(let item), .answered(let item, _), .dismissed(let item),
      .dropped(let item, _):
      item
    }
  }
}
