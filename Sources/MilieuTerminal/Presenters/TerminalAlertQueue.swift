@_spi(MilieuInternal) import Milieu
import MilieuAlerts

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Takes turns on one terminal: the alerts that hosts hand to ``TerminalAlertPresenter``s are
/// asked one at a time, each on a thread of its own, and each answer goes back to its host.
///
/// One queue serves each pair of input and output descriptors, whichever host and presenter
/// the alerts come from, so a sheet's host and the app's host never draw two boxes at once.
///
/// The order of output is kept simple to follow. While an answer is being handed to its host —
/// a synchronous `tap` or `dismiss`, which delivers the outcome at once when the button has no
/// action — any alert that arrives waits, and starts only after the call returns. So the next
/// alert in a host's queue is drawn after whatever the previous outcome's completion printed.
/// A button's action runs after that, concurrently; the queue never waits for it, so an action
/// may itself show an alert and await it.
final class TerminalAlertQueue: Sendable {
  private static let queues = Lock<[Key: TerminalAlertQueue]>([:])

  private struct Key: Hashable {
    var input: Int32
    var output: Int32
  }

  /// The queue for a terminal, made on first use.
  static func forTerminal(input: Int32, output: Int32) -> TerminalAlertQueue {
    queues.withLock { queues in
      let key = Key(input: input, output: output)
      if let queue = queues[key] { return queue }
      let queue = TerminalAlertQueue()
      queues[key] = queue
      return queue
    }
  }

  /// One alert to ask.
  struct Request: Identifiable, Sendable {
    let alert: AlertData
    let host: AlertHost
    let terminal: Terminal
    /// Where problems presenting the alert are reported.
    let issueReporter: IssueReporter

    var id: PresentationID { alert.id }
  }

  private struct State {
    /// The alert asked now, and the alerts waiting for their turn.
    var turns = Turns<Request>()
    /// Becomes readable to take the alert asked now down; `nil` if it could not be opened.
    var cancellation: CancellationPipe?
    /// How many answers are being handed to their hosts right now.
    var answering = 0
  }

  /// An alert whose turn has come, with what takes it down.
  private struct Start {
    let request: Request
    let cancellation: Result<CancellationPipe, TerminalError>
  }

  private let state = Lock(State())

  private init() {}

  /// Adds an alert; it is asked at once if the terminal is free.
  func enqueue(_ request: Request) {
    launch(
      state.withLock { state in
        state.turns.enqueue(request)
        return nextStart(&state)
      })
  }

  /// Takes an alert away: wakes its interaction, which restores the terminal, erases the box
  /// and ends as `.cancelled`; or removes it from the queue.
  func withdraw(_ id: PresentationID) {
    state.withLock { state in
      if state.turns.current?.id == id {
        // Signalled under the lock, so that the interaction cannot close the pipe meanwhile.
        state.cancellation?.signal()
      } else {
        _ = state.turns.remove(id)
      }
    }
  }

  /// Takes the first waiting alert, unless one is up or an answer is being handed over.
  private func nextStart(_ state: inout State) -> Start? {
    guard state.answering == 0, state.turns.startNext(), let request = state.turns.current else {
      return nil
    }
    let cancellation = Result { () throws(TerminalError) in try CancellationPipe() }
    state.cancellation = try? cancellation.get()
    return Start(request: request, cancellation: cancellation)
  }

  /// Asks an alert on a thread of its own: the interaction blocks in poll(2) and must not hold
  /// a thread of the concurrency pool, nor wait for one to start.
  private func launch(_ start: Start?) {
    guard let start else { return }
    let request = start.request
    let cancellation: CancellationPipe
    switch start.cancellation {
    case .success(let pipe): cancellation = pipe
    case .failure(let error):
      finish(request, with: .failure(error))
      return
    }
    let started = DetachedThread.run { [self] in
      let result: Result<Terminal.Reply, TerminalError>
      if cancellation.isSignalled {
        result = .success((.cancelled, []))
      } else {
        result = Result { () throws(TerminalError) in
          try request.terminal.reply(
            to: TerminalAlert(request.alert), cancellation: cancellation.readEnd)
        }
      }
      finish(request, with: result)
    }
    if !started {
      finish(request, with: .failure(TerminalError(operation: "pthread_create", code: EAGAIN)))
    }
  }

  /// What the host is told: a tap, a dismissal, or nothing for an alert it withdrew.
  private enum Reply {
    case tap(AlertTap)
    case dismiss
  }

  private func finish(_ request: Request, with result: Result<Terminal.Reply, TerminalError>) {
    let alert = request.alert
    let reply: Reply?
    switch result {
    case .success((.button(let index), let texts)):
      // The terminal drew the alert's own buttons and fields, in order, so the index and the
      // texts are the alert's.
      let tap = alert.tap(ofButtonAt: index, texts: texts, reportingTo: request.issueReporter)
      reply = tap.map { .tap($0) } ?? .dismiss
    case .success((.dismissed, _)), .success((.interrupted, _)):
      reply = .dismiss
    case .success((.cancelled, _)):
      // Withdrawn: the host has already moved on.
      reply = nil
    case .failure(let error):
      request.issueReporter.report(
        EnvironmentIssue(
          "The terminal could not ask \(DiagnosticText.quoted(alert.title)): \(error). The alert "
            + "is dismissed. "
            + "Present alerts on a terminal, or on standard input and output that are open.",
          at: alert.callSite))
      reply = .dismiss
    }
    let next = state.withLock { state -> Start? in
      // Closed under the lock, so that `withdraw` never signals a closed pipe.
      state.cancellation?.close()
      state.cancellation = nil
      state.turns.endTurn()
      guard reply == nil else {
        state.answering += 1
        return nil
      }
      return nextStart(&state)
    }
    launch(next)
    guard let reply else { return }
    // An alert that is no longer current (withdrawn meanwhile) rejects the answer; nothing
    // else is left to do for it.
    switch reply {
    case .tap(let tap): try? request.host.answer(tap, for: alert)
    case .dismiss: try? request.host.dismiss(alert)
    }
    launch(
      state.withLock { state in
        state.answering -= 1
        return nextStart(&state)
      })
  }
}
