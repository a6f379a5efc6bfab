@_spi(MilieuInternal) import Milieu

// Effect delivery: what a change of state leads to runs after the host's lock is released.
// Presenting, withdrawing, events and expiries run in the order they were queued, one thread at
// a time: the thread that caused them, or the one delivering when they were queued. The
// outcome of an item the change dropped is delivered by the thread that caused it, after that,
// and never handed to another: user code that blocks there holds up nobody else's effects.

extension PresentationHost {
  enum Effect: Sendable {
    case present(Item)
    case withdraw(Item)
    case event(PresentationEvent<Item>)
    case expire(Item, after: Duration)
    case cancelExpiry(Task<Void, Never>)
  }

  typealias Outcome = PresentationOutcome<Item.Answer>

  typealias Subscriber = AsyncStream<PresentationEvent<Item>>.Continuation

  /// Effects taken for delivery, with the subscribers their events go to.
  typealias Batch = (effects: [Effect], subscribers: [Subscriber])

  /// Changes the state under the lock, then delivers the effects it queued, in order, with no
  /// lock held; if another call is already delivering, that call delivers them.
  ///
  /// `body` throws only before it changes anything, so a throw leaves nothing to deliver: outside
  /// the lock, queued effects always have a call delivering them.
  @discardableResult
  func mutate<Result: Sendable, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (result, batch) = try state.withLock {
      (state) throws(Failure) -> (Result, Batch?) in
      let result = try body(&state)
      guard !state.isDelivering, !state.effects.isEmpty else { return (result, nil) }
      state.isDelivering = true
      return (result, state.takeEffects())
    }
    if let (effects, subscribers) = batch { deliver(effects, to: subscribers) }
    return result
  }

  /// Ends a delivery that a caller started itself, presenting an item with no effect queued
  /// (``State/Admission/presentNow``): delivers what was queued meanwhile, if anything.
  func finishDelivering() {
    let batch = state.withLock { state -> Batch? in
      guard !state.effects.isEmpty else {
        state.isDelivering = false
        return nil
      }
      return state.takeEffects()
    }
    if let (effects, subscribers) = batch { deliver(effects, to: subscribers) }
  }

  /// Runs a batch of effects, then each batch queued meanwhile, until none is left.
  ///
  /// The emptied batch goes back to the state, as the next buffer to queue effects in or as
  /// the spare, so that a host in use does not allocate to deliver.
  private func deliver(
    _ effects: consuming [Effect], to subscribers: [Subscriber]
  ) {
    var subscribers = subscribers
    while true {
      // Popped from the back of the reversed batch, each effect is moved out of the array rather
      // than copied out and later destroyed in it: copying and destroying the generic enum go
      // through its value witnesses.
      effects.reverse()
      assertNoMilieuLockHeld("a host delivers what a change led to: presenting, resolving, events")
      while let effect = effects.popLast() {
        switch consume effect {
        case .present(let item): presenter.present(item, in: self)
        case .withdraw(let item): presenter.withdraw(item, from: self)
        case .event(let event): for subscriber in subscribers { subscriber.yield(event) }
        case .expire(let item, let lifetime): scheduleExpiry(of: item, after: lifetime)
        case .cancelExpiry(let task): task.cancel()
        }
      }
      if effects.capacity > Self.reusedEffectsCapacity { effects = [] }
      let finished = state.withLock { state in
        if state.effects.isEmpty {
          state.isDelivering = false
          swap(&state.spareEffects, &effects)
          return true
        }
        swap(&state.effects, &effects)
        subscribers = state.eventSubscribers
        return false
      }
      if finished { return }
    }
  }

  /// The most effects a buffer that is kept for reuse may hold: a burst that queued more (many
  /// items shown at once) gives its memory back rather than keep it for the host's lifetime.
  private static var reusedEffectsCapacity: Int { 64 }
}

extension PresentationHost.State {
  /// Takes the queued effects, with the subscribers their events go to, and puts the spare
  /// buffer in their place.
  fileprivate mutating func takeEffects() -> PresentationHost.Batch {
    var taken: [PresentationHost.Effect] = []
    swap(&taken, &spareEffects)
    swap(&taken, &effects)
    return (taken, eventSubscribers)
  }

  /// The subscribers that the events of the effects being taken go to.
  fileprivate var eventSubscribers: [PresentationHost.Subscriber] {
    subscribers.isEmpty ? [] : Array(subscribers.values)
  }
}
