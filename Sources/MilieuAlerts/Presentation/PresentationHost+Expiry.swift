@_spi(MilieuInternal) import Milieu

// Expiry: an item with a lifetime, such as a toast, is answered with its expiry answer when its
// lifetime runs out on the host's clock, unless it left the screen first.

extension PresentationHost {
  func scheduleExpiry(of item: Item, after lifetime: Duration) {
    guard let answer = item.expiryAnswer else { return }
    let clock = clock
    let task = Task { [weak self] in
      do {
        try await clock.sleep(for: lifetime)
      } catch {
        return  // cancelled: the item resolved before it expired
      }
      try? await self?.answerAndWait(answer, for: item)
    }
    let stillShown = state.withLock { state in
      guard state.current?.item.id == item.id else { return false }
      state.expiries[item.id] = task
      return true
    }
    if !stillShown { task.cancel() }
  }
}

extension PresentationHost.State {
  /// Stops the expiry of an item that left the screen before its lifetime ran out.
  ///
  /// Checks for an empty table first: looking an identifier up, even in an empty dictionary,
  /// hashes it, and most items (alerts) never have an expiry.
  mutating func stopExpiry(of item: Item) {
    if !expiries.isEmpty, let expiry = expiries.removeValue(forKey: item.id) {
      effects.append(.cancelExpiry(expiry))
    }
  }
}
