import Milieu
import MilieuAlerts
import MilieuTestSupport
import Testing

@Suite struct AlertHostTests {
  @Test func theFirstAlertIsCurrentAndTheRestWaitInOrder() {
    let presenter = RecordingPresenter<AlertData>()
    let host = AlertHost(presenter: presenter)
    let first = AlertData(title: "1")
    host.show(first)
    host.show(AlertData(title: "2"))
    host.show(AlertData(title: "3"))
    #expect(host.current?.id == first.id)
    #expect(host.pending.map(\.title) == ["2", "3"])
    #expect(presenter.entries == ["present 1"])
  }

  @Test func aTapRunsTheActionOnceResolvesAndPresentsTheNext() async throws {
    let presenter = RecordingPresenter<AlertData>()
    let host = AlertHost(presenter: presenter)
    let runs = Counter()
    let first = AlertData(title: "1", buttons: [.default("Go") { runs.increment() }, .cancel()])
    let outcome = Outcomes()
    host.show(first) { outcome.append($0) }
    host.show(AlertData(title: "2"))

    try await host.tapAndWait(first.buttons[0], of: first)
    #expect(runs.count == 1)
    #expect(outcome.all == [.answered(AlertTap(first.buttons[0], at: 0))])
    #expect(host.current?.title == "2")
    #expect(presenter.entries == ["present 1", "present 2"])

    // A second tap on the same alert is stale: an error, and nothing changes.
    await #expect(throws: PresentationError.self) {
      try await host.tapAndWait(first.buttons[0], of: first)
    }
    #expect(runs.count == 1)
    #expect(host.current?.title == "2")
    #expect(outcome.all.count == 1)
  }

  @Test func aTapOnAButtonTheAlertDoesNotHaveChangesNothing() {
    let host = AlertHost()
    let alert = AlertData(title: "A", buttons: [.default("Yes"), .cancel()])
    let stranger = AlertButton("Yes")
    host.show(alert)
    #expect(throws: PresentationError.invalidAnswer("button \"Yes\"", item: alert.id, title: "A")) {
      try host.tap(stranger, of: alert)
    }
    #expect(host.current?.id == alert.id)
  }

  @Test func aStaleTapNamesTheAlertShown() {
    let host = AlertHost()
    let old = AlertData(title: "Old")
    let shown = AlertData(title: "Shown")
    host.show(shown)
    do {
      try host.tap(old.buttons[0], of: old)
      Issue.record("the stale tap was accepted")
    } catch {
      #expect(error == .notCurrent(old.id, title: "Old", current: shown.id))
      #expect(error.description.contains("is not the one shown (\(shown.id) is)"))
    }
  }

  @Test func dismissingRunsTheCancelActionAndResolvesAsDismissed() async throws {
    let host = AlertHost()
    let cancelled = Counter()
    let outcomes = Outcomes()
    let alert = AlertData(
      title: "A", buttons: [.default("Go"), .cancel("Stop") { cancelled.increment() }])
    host.show(alert) { outcomes.append($0) }
    try await host.dismissAndWait(alert)
    #expect(cancelled.count == 1)
    #expect(outcomes.all == [.dismissed])
    #expect(host.current == nil)
  }

  @Test func theSyncTapRunsAnAsyncActionToCompletionBeforeResolving() async throws {
    let host = AlertHost()
    let ran = Counter()
    let alert = AlertData(
      title: "A",
      buttons: [
        .default("Go") {
          await Task.yield()
          ran.increment()
        }
      ])
    let outcome = await withCheckedContinuation { continuation in
      host.show(alert) { continuation.resume(returning: $0) }
      do { try host.tap(alert.buttons[0], of: alert) } catch { Issue.record("\(error)") }
    }
    #expect(ran.count == 1)
    #expect(outcome.tappedButton?.title == "Go")
  }

  @Test func anActionThatShowsAnotherAlertQueuesIt() async throws {
    let presenter = RecordingPresenter<AlertData>()
    let host = AlertHost(presenter: presenter)
    let follow = AlertData(title: "Follow-up")
    let first = AlertData(title: "First", buttons: [.default("Next") { host.show(follow) }])
    host.show(first)
    try await host.tapAndWait(first.buttons[0], of: first)
    #expect(host.current?.id == follow.id)
    #expect(presenter.entries == ["present First", "present Follow-up"])
  }

  @Test func aPresenterThatAnswersInsidePresentDrainsTheQueueWithoutRecursion() async {
    let host = AlertHost(presenter: TapFirstButtonPresenter())
    let outcomes = Outcomes()
    for index in 0..<2_000 { host.show(AlertData(title: "\(index)")) { outcomes.append($0) } }
    #expect(host.current == nil)
    #expect(outcomes.all.count == 2_000)
  }

  @Test func duplicatesAreDroppedWhileTheOriginalIsShownOrWaiting() {
    let host = AlertHost()
    let outcomes = Outcomes()
    let original = AlertData(title: "Offline", deduplicationKey: "offline")
    host.show(original)
    host.show(AlertData(title: "Offline again", deduplicationKey: "offline")) {
      outcomes.append($0)
    }
    #expect(outcomes.all == [.dropped(.duplicate(of: original.id))])
    #expect(host.pendingCount == 0)

    // Once the original is answered, the key is free again.
    try? host.dismiss(original)
    host.show(AlertData(title: "Offline a third time", deduplicationKey: "offline"))
    #expect(host.current?.title == "Offline a third time")
  }

  @Test func aFullQueueDropsTheNewAlertByDefault() {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 2))
    let outcomes = Outcomes()
    for index in 0..<4 { host.show(AlertData(title: "\(index)")) { outcomes.append($0) } }
    #expect(host.current?.title == "0")
    #expect(host.pending.map(\.title) == ["1", "2"])
    #expect(outcomes.all == [.dropped(.queueFull(limit: 2))])
  }

  @Test func aFullQueueCanDropTheOldestInstead() {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 2, overflow: .dropOldest))
    let outcomes = Outcomes()
    for index in 0..<4 { host.show(AlertData(title: "\(index)")) { outcomes.append($0) } }
    #expect(host.pending.map(\.title) == ["2", "3"])
    #expect(outcomes.all == [.dropped(.queueFull(limit: 2))])
  }

  @Test func theReplacePolicyWithdrawsTheShownAlert() {
    let presenter = RecordingPresenter<AlertData>()
    let host = AlertHost(policy: .replace, presenter: presenter)
    let outcomes = Outcomes()
    let first = AlertData(title: "First")
    let second = AlertData(title: "Second")
    host.show(first) { outcomes.append($0) }
    host.show(second)
    #expect(host.current?.id == second.id)
    #expect(outcomes.all == [.dropped(.replaced(by: second.id))])
    #expect(presenter.entries == ["present First", "withdraw First", "present Second"])
  }

  @Test func theDropNewPolicyKeepsTheShownAlert() {
    let host = AlertHost(policy: .dropNew)
    let outcomes = Outcomes()
    host.show(AlertData(title: "First"))
    host.show(AlertData(title: "Second")) { outcomes.append($0) }
    #expect(host.current?.title == "First")
    #expect(outcomes.all == [.dropped(.busy)])
  }

  @Test func aHostDeallocatedWithAwaitersResolvesThemAll() async throws {
    var host: AlertHost? = AlertHost()
    let action = host.map { ShowAlertAction(host: $0) }
    let waiters = (0..<3).map { index in
      Task { await action?.ask(title: "\(index)") }
    }
    await eventually("all three alerts reached the host") {
      (host?.pendingCount ?? 0) == 2 && host?.current != nil
    }
    let weakHost = WeakReference(host)
    #expect(weakHost.object != nil)
    host = nil
    #expect(weakHost.object == nil)
    for waiter in waiters {
      #expect(await waiter.value == .dropped(.hostDeallocated))
    }
    // Showing through the action afterwards resolves at once.
    #expect(await action?.ask(title: "late") == .dropped(.hostDeallocated))
  }

  /// A host freed with an alert up tells its presenter to take the alert away; the alerts that
  /// were only waiting were never presented, so nothing withdraws them.
  @Test func aHostFreedWithAnAlertUpWithdrawsIt() {
    let presenter = RecordingPresenter<AlertData>()
    var host: AlertHost? = AlertHost(presenter: presenter)
    let outcomes = Outcomes()
    host?.show(AlertData(title: "Shown")) { outcomes.append($0) }
    host?.show(AlertData(title: "Waiting")) { outcomes.append($0) }
    host = nil
    #expect(presenter.entries == ["present Shown", "withdraw Shown"])
    #expect(outcomes.all == [.dropped(.hostDeallocated), .dropped(.hostDeallocated)])
  }

  @Test func cancellingAnAwaitingTaskWithdrawsItsAlert() async {
    let presenter = RecordingPresenter<AlertData>()
    let host = AlertHost(presenter: presenter)
    let action = ShowAlertAction(host: host)
    host.show(AlertData(title: "Blocking"))
    let waiter = Task { await action.ask(title: "Waiting") }
    await eventually("the alert is queued") { host.pendingCount == 1 }
    waiter.cancel()
    #expect(await waiter.value == .dropped(.cancelled))
    #expect(host.pendingCount == 0)

    let shown = Task { await action.ask(title: "Shown") }
    if let blocking = host.current { try? await host.dismissAndWait(blocking) }
    await eventually("the alert is shown") { host.current?.title == "Shown" }
    shown.cancel()
    #expect(await shown.value == .dropped(.cancelled))
    #expect(host.current == nil)
    #expect(presenter.entries.suffix(2) == ["present Shown", "withdraw Shown"])
  }

  @Test func anAlreadyCancelledTaskResolvesAsCancelled() async {
    let host = AlertHost()
    let action = ShowAlertAction(host: host)
    let outcome = await Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await action.ask(title: "Too late")
    }.value
    #expect(outcome == .dropped(.cancelled))
    #expect(host.current == nil)
  }

  @Test func aTaskCancelledAfterTheTapGetsTheTap() async throws {
    let host = AlertHost()
    let action = ShowAlertAction(host: host)
    let (running, actionRuns) = AsyncStream.makeStream(of: Void.self)
    let (release, releaseAction) = AsyncStream.makeStream(of: Void.self)
    let finished = Counter()
    let asking = Task {
      await action.ask(
        title: "Erase the disk?",
        buttons: [
          .destructive("Erase") {
            actionRuns.yield()
            for await _ in release { break }
            finished.increment()
          },
          .cancel(),
        ])
    }
    await eventually("the alert is shown") { host.current != nil }
    let alert = try #require(host.current)
    try tapWithoutWaiting(alert.buttons[0], of: alert, in: host)
    for await _ in running { break }
    asking.cancel()
    releaseAction.yield()
    let outcome = await asking.value
    #expect(outcome.tappedButton?.title == "Erase")
    #expect(finished.count == 1)
  }

  @Test func showingAnAlertThatIsAlreadyShownIsDroppedAndReported() throws {
    let host = AlertHost()
    let outcomes = Outcomes()
    let alert = AlertData(title: "Saved")
    let (_, issues) = collectingIssues {
      host.show(alert)
      host.show(alert) { outcomes.append($0) }
    }
    #expect(outcomes.all == [.dropped(.duplicate(of: alert.id))])
    #expect(host.pendingCount == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.location == alert.callSite)
    #expect(
      issues.first?.message
        == "the alert \"Saved\" (\(alert.id)) is already shown or waiting in its host; showing the "
        + "same value again is dropped as a duplicate of it, so that each showing is answered "
        + "once. Fix: make a new AlertData for each showing, or await the outcome of the first.")

    // The duplicated tap meets an alert that is no longer current.
    try host.tap(alert.buttons[0], of: alert)
    #expect(throws: PresentationError.self) { try host.tap(alert.buttons[0], of: alert) }

    // Once answered, the value may be shown again.
    host.show(alert)
    #expect(host.current?.id == alert.id)
  }

  @Test func showingAnAlertThatIsAlreadyWaitingIsDroppedAndReported() {
    let host = AlertHost()
    let outcomes = Outcomes()
    let alert = AlertData(title: "Queued")
    let (_, issues) = collectingIssues {
      host.show(AlertData(title: "First"))
      host.show(alert)
      host.show(alert) { outcomes.append($0) }
    }
    #expect(outcomes.all == [.dropped(.duplicate(of: alert.id))])
    #expect(host.pending.map(\.id) == [alert.id])
    #expect(issues.count == 1)
  }

  @Test func cancellingTheSecondAskOfOneValueLeavesTheFirstAlone() async throws {
    let host = AlertHost()
    let action = ShowAlertAction(host: host)
    let alert = AlertData(title: "Continue?", buttons: [.default("Yes"), .cancel()])
    let (_, _) = await collectingIssuesAsync {
      let first = Task { await action.ask(alert) }
      await eventually("the first is shown") { host.current?.id == alert.id }
      let second = Task { await action.ask(alert) }
      #expect(await second.value == .dropped(.duplicate(of: alert.id)))
      second.cancel()
      #expect(host.current?.id == alert.id)
      try? tapWithoutWaiting(alert.buttons[0], of: alert, in: host)
      #expect(await first.value.tappedButton?.title == "Yes")
      return ()
    }
  }

  @Test func eventsTellTheWholeStory() async throws {
    let host = AlertHost(policy: PresentationPolicy(maximumPending: 1))
    var events = host.events().makeAsyncIterator()
    let first = AlertData(title: "1", buttons: [.default("Go"), .cancel()])
    let second = AlertData(title: "2")
    let third = AlertData(title: "3")
    host.show(first)
    host.show(second)
    host.show(third)
    try await host.tapAndWait(first.buttons[0], of: first)
    try await host.dismissAndWait(second)

    let story = await storyOf(6, from: &events)
    #expect(
      story == [
        "presented 1", "enqueued 2",
        "dropped 3: the queue is full, with a limit of 1",
        "1 tapped Go", "presented 2", "dismissed 2",
      ])
  }

  /// `enqueued` means what its documentation says, "arrived and waits to be shown": an alert
  /// shown at once, or one that replaces the alert shown, is presented without it.
  @Test func onlyAnAlertThatWaitsIsEnqueued() async {
    let host = AlertHost()
    var events = host.events().makeAsyncIterator()
    let first = AlertData(title: "1")
    host.show(first)
    host.show(AlertData(title: "2"))
    try? host.dismiss(first)
    let replacing = AlertHost(policy: .replace)
    var replacingEvents = replacing.events().makeAsyncIterator()
    replacing.show(AlertData(title: "A"))
    replacing.show(AlertData(title: "B"))

    #expect(
      await storyOf(4, from: &events) == [
        "presented 1", "enqueued 2", "dismissed 1", "presented 2",
      ])
    #expect(
      await storyOf(3, from: &replacingEvents) == [
        "presented A", "dropped A: replaced by \(replacing.current?.id.description ?? "")",
        "presented B",
      ])
  }

  // The host queues events only while someone subscribes, and a presenter that answers inside
  // `present` makes the host deliver in several rounds: each round's events still arrive, in order.
  @Test func eventsFollowAPresenterThatAnswersInsidePresent() async {
    let host = AlertHost(presenter: TapFirstButtonPresenter())
    var events = host.events().makeAsyncIterator()
    host.show(AlertData(title: "1"))
    host.show(AlertData(title: "2"))

    let story = await storyOf(4, from: &events)
    #expect(story == ["presented 1", "1 tapped OK", "presented 2", "2 tapped OK"])
  }
}

/// The next `count` events of a host, each as a short line.
private func storyOf(
  _ count: Int, from events: inout AsyncStream<PresentationEvent<AlertData>>.Iterator
) async -> [String] {
  var story: [String] = []
  for _ in 0..<count {
    guard let event = await events.next() else { break }
    switch event {
    case .enqueued(let alert): story.append("enqueued \(alert.title)")
    case .presented(let alert): story.append("presented \(alert.title)")
    case .answered(let alert, let choice): story.append("\(alert.title) \(choice)")
    case .dismissed(let alert): story.append("dismissed \(alert.title)")
    case .dropped(let alert, let reason): story.append("dropped \(alert.title): \(reason)")
    }
  }
  return story
}
