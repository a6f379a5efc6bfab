import Milieu
import MilieuAlerts
import MilieuTerminal

/// The root of the demo's service graph.
///
/// ```text
/// node "app"                  NotesApp: alert host, toast host, the app's values (a child of
///                             the process-wide root, which holds the issue reporter)
/// └─ node "library"           LibraryService
///    ├─ node "folder: Work"   FolderService (syncAttempts = 3 for its subtree)
///    │  └─ node "note: Roadmap"  NoteService
///    └─ node "sheet: Share"   ShareSheetService, with an alert host of its own
/// ```
///
/// Every service is created inside `withCurrent` of its own node, so its `@Environment`
/// properties read from there.
struct NotesApp {
  let root: EnvironmentNode
  let alertHost: AlertHost
  let toastHost: ToastHost
  let library: LibraryService

  init(terminal: Terminal) {
    // Below the process-wide root, so that what the process sets there — the issue
    // reporter — reaches the app too.
    root = EnvironmentNode.root.child("app")
    root.update { values in
      values.terminal = terminal
      values.notesStore = NotesStore.sample()
      values.syncServer = SyncServer(failuresBeforeSuccess: 2)
      values.syncAttempts = 5
    }
    alertHost = root.installAlertHost(presenter: TerminalAlertPresenter(terminal: terminal))
    toastHost = root.installToastHost(presenter: TerminalToastPresenter(terminal: terminal))
    let libraryNode = root.child("library")
    library = libraryNode.withCurrent { LibraryService() }
  }

  /// Asks which scenario to run, with the same alert host as everything else.
  func chooseScenario() async -> Scenario? {
    let menu = root.withCurrent { ScenarioMenu() }
    return await root.withCurrent { await menu.choose() }
  }

  /// Runs a scenario to the end, with the app's root as the current node: every alert it shows
  /// is resolved when this returns.
  func run(_ scenario: Scenario) async {
    await root.withCurrent { await runInScope(scenario) }
  }

  private func runInScope(_ scenario: Scenario) async {
    switch scenario {
    case .delete:
      _ = await library.work.deleteSelection()
    case .retry:
      _ = await library.work.roadmap.sync()
    case .burst:
      await runBurst()
    case .toast:
      await runToasts()
    case .sheet:
      await library.shareRoadmap()
    }
  }

  /// The library syncs and says so; once that is answered, three services at three depths
  /// each show an alert at once. The host presents the first and queues the others, the
  /// conflict, of high priority, ahead of the warning that came before it; each outcome line
  /// is written as its alert resolves.
  private func runBurst() async {
    let (outcomes, collector) = AsyncStream.makeStream(of: AlertOutcome.self)
    let yield: @Sendable (AlertOutcome) -> Void = { collector.yield($0) }
    // The note is an actor: its question is made here, to be asked with the others.
    let askAboutConflict = await library.work.roadmap.conflictQuestion(completion: yield)
    let library = library
    library.announceSync { outcome in
      yield(outcome)
      // Shown from the answer's completion, which runs inside the answer: the terminal draws
      // none of the three before all three are queued, whoever answers how fast.
      library.remindAboutBackup(completion: yield)
      library.work.warnAboutSpace(completion: yield)
      askAboutConflict()
    }
    var resolved = 0
    for await _ in outcomes {
      resolved += 1
      if resolved == 4 { break }
    }
  }

  /// Three services each show a toast. The toast host shows them one after the other, each
  /// until it expires on the host's clock; the app waits for all three through the host's
  /// event stream, then reports how each ended.
  private func runToasts() async {
    let events = toastHost.events()
    library.toastOpened()
    library.work.toastAlmostFull()
    await library.work.roadmap.toastSaved()
    var lines: [String] = []
    for await event in events {
      switch event {
      case .answered(let toast, let ending):
        lines.append(TerminalConsole.outcomeLine(ToastOutcome.answered(ending), of: toast))
      case .dismissed(let toast):
        lines.append(TerminalConsole.outcomeLine(ToastOutcome.dismissed, of: toast))
      case .dropped(let toast, let reason):
        lines.append(TerminalConsole.outcomeLine(ToastOutcome.dropped(reason), of: toast))
      case .enqueued, .presented:
        continue
      }
      if lines.count == 3 { break }
    }
    let console = root[\.console]
    for line in lines { console.writeLine(line) }
  }
}
