import MilieuAlerts

/// Shows an item in a host and returns a stream that yields its outcome once it resolves.
func show<Item: Presentable>(
  _ item: Item, in host: PresentationHost<Item>
) -> AsyncStream<PresentationOutcome<Item.Answer>> {
  let (stream, continuation) = AsyncStream.makeStream(of: PresentationOutcome<Item.Answer>.self)
  host.show(item) { outcome in
    continuation.yield(outcome)
    continuation.finish()
  }
  return stream
}

extension AsyncStream {
  /// The first element, or `nil` if the stream finishes without one.
  func first() async -> Element? {
    for await element in self { return element }
    return nil
  }
}
