import Milieu

/// The engine behind ``ShowAlertAction`` and ``ShowToastAction``: hands items to a host, or to
/// a replacement in tests, and resolves each exactly once.
package struct PresentationAction<Item: Presentable>: Sendable {
  package typealias Outcome = PresentationOutcome<Item.Answer>

  /// Where items go. One object, so that copying an action (every `@Environment` read of one)
  /// retains one reference besides its node.
  let target: PresentationTarget<Item>
  /// The node the action was read from through `@Environment`, if any, with its reporter.
  private var binding: Binding?

  /// The node an action is bound to, and that node's `issueReporter`, read when the action was
  /// bound: a host keeps it with each item the action shows, for its presenter's reports. One
  /// object, so that copying a bound action retains no more than copying an unbound one.
  private final class Binding: Sendable {
    let node: EnvironmentNode
    let reporter: IssueReporter

    init(_ node: EnvironmentNode) {
      self.node = node
      reporter = node[\.issueReporter]
    }
  }

  /// The node the action was read from through `@Environment`, if any: the action runs there,
  /// so that its issues go to that node's reporter and name that node.
  package var node: EnvironmentNode? { binding?.node }

  private init(target: PresentationTarget<Item>) {
    self.target = target
  }

  /// Delivers to a host held weakly: a host nobody else holds is freed, and then every item
  /// resolves as ``DropReason/hostDeallocated``.
  package init(host: PresentationHost<Item>) {
    target = PresentationTarget(host: host)
  }

  /// Delivers to code: `deliver` takes an item and a resolution and must resolve it, now or
  /// later (a resolution that goes away unresolved resolves as unanswered); `withdraw` takes
  /// back an item whose awaiting task was cancelled. Both run with the action's node current,
  /// as a call from there would.
  package init(
    deliver: @escaping @Sendable (Item, Resolution<Item.Answer>?) -> Void,
    withdraw: @escaping @Sendable (PresentationID) -> Void = { _ in }
  ) {
    target = PresentationTarget(deliver: deliver, withdraw: withdraw)
  }

  /// Hands each item to a closure that answers it by calling `resolve`; an item whose `resolve`
  /// is dropped uncalled resolves as ``DropReason/unanswered``, and calls after the first are
  /// ignored.
  package init(
    handler: @escaping @Sendable (Item, _ resolve: @escaping @Sendable (Outcome) -> Void) -> Void
  ) {
    self.init { item, resolution in
      let resolution = resolution ?? Resolution { _ in }
      handler(item) { resolution.resolve($0) }
    }
  }

  /// The action where no host is installed: it reports the item, `what` (`The alert`), with
  /// `install`, how to install a host, and drops it; `entry`, the key path it is read at
  /// (`\.showAlert`), says how to bind it.
  static func noHost(_ what: String, entry: String, install: String) -> Self {
    Self(target: PresentationTarget(noHost: (what, entry, install)))
  }

  /// Reports that no host is installed where the action was read, naming that node when the
  /// action knows it, and drops the item.
  private func dropForNoHost(
    _ item: Item, _ resolution: Resolution<Item.Answer>?,
    _ report: (what: String, entry: String, install: String)
  ) {
    let place: String
    let reporter: IssueReporter
    if let binding {
      place = "on the path from \(binding.node) to the root"
      reporter = binding.reporter
    } else {
      let current = EnvironmentNode.current
      place =
        "above the node this action was read from (it was called in \(current); "
        + "read with a node's subscript, an action does not know that node: read it with "
        + "`@Environment(\(report.entry))`, or bind it with `bound(to: node)`, to have it named "
        + "here)"
      reporter = current[\.issueReporter]
    }
    reporter.report(
      EnvironmentIssue(
        "\(report.what) \(DiagnosticText.quoted(item.title)) was dropped: no host is installed "
          + "\(place). \(report.install)", at: item.callSiteForDiagnostics))
    resolution?.resolve(.dropped(.noHost))
  }

  /// This action, run in `node` whichever node is current when it is called.
  package func bound(to node: EnvironmentNode) -> Self {
    var bound = self
    bound.binding = Binding(node)
    return bound
  }

  /// Runs `body` with the action's node current, if it has one.
  package func inNode<Result>(_ body: () -> Result) -> Result {
    guard let node else { return body() }
    return node.withCurrent(body)
  }

  package func callAsFunction(_ item: Item) {
    deliver(item, nil)
  }

  package func callAsFunction(_ item: Item, completion: @escaping @Sendable (Outcome) -> Void) {
    deliver(item, Resolution(completion))
  }

  /// Hands an item to the target, as shown from the action's node.
  package func deliver(_ item: Item, _ resolution: Resolution<Item.Answer>?) {
    if let host = target.host {
      host.show(item, resolution: resolution, reportingTo: binding?.reporter)
    } else if let noHost = target.noHost {
      dropForNoHost(item, resolution, noHost)
    } else if let deliver = target.deliver {
      guard let node else { return deliver(item, resolution) }
      node.withCurrent { deliver(item, resolution) }
    } else {
      resolution?.resolve(.dropped(.hostDeallocated))
    }
  }

  /// Takes back an item whose awaiting task was cancelled.
  func withdraw(_ id: PresentationID) {
    if let host = target.host {
      host.withdraw(id)
    } else if let withdraw = target.withdraw {
      guard let node else { return withdraw(id) }
      node.withCurrent { withdraw(id) }
    }
  }

  package func ask(_ item: Item) async -> Outcome {
    await Resolution.awaitOutcome { resolution in
      PresentationAsking.$isAsking.withValue(true) {
        deliver(item, resolution)
      }
    } withdraw: {
      withdraw(item.id)
    }
  }
}

/// What a ``PresentationAction`` hands its items to: a host, held weakly, code, or nobody (no
/// host is installed).
final class PresentationTarget<Item: Presentable>: Sendable {
  /// The host, while it lives; `nil` for a target that is code, and once the host is freed.
  /// Written only in `init`: a `var` because `weak let` needs Swift 6.2.3, and without the
  /// runtime's exclusivity checks, which a constant needs no more than this does.
  @exclusivity(unchecked) nonisolated(unsafe) weak var host: PresentationHost<Item>?
  let deliver: (@Sendable (Item, Resolution<Item.Answer>?) -> Void)?
  let withdraw: (@Sendable (PresentationID) -> Void)?
  /// For the action where no host is installed: what it reports.
  let noHost: (what: String, entry: String, install: String)?

  init(host: PresentationHost<Item>) {
    self.host = host
    deliver = nil
    withdraw = nil
    noHost = nil
  }

  init(
    deliver: @escaping @Sendable (Item, Resolution<Item.Answer>?) -> Void,
    withdraw: @escaping @Sendable (PresentationID) -> Void
  ) {
    host = nil
    self.deliver = deliver
    self.withdraw = withdraw
    noHost = nil
  }

  init(noHost: (what: String, entry: String, install: String)) {
    host = nil
    deliver = nil
    withdraw = nil
    self.noHost = noHost
  }
}

extension Presentable {
  /// Where the item was made, for diagnostics, when the item knows.
  var callSiteForDiagnostics: CallSite {
    (self as? any CallSiteProviding)?.callSite
      ?? CallSite(fileID: "<unknown>", filePath: "<unknown>", line: 0, column: 0)
  }
}

/// An item that remembers where it was made.
protocol CallSiteProviding {
  var callSite: CallSite { get }
}

extension AlertData: CallSiteProviding {}

/// Whether the item being delivered is awaited by the task that shows it (`ask`), rather than
/// shown and forgotten: a test recorder that started the task by a tap can then stop waiting
/// for the task, which waits on the test.
package enum PresentationAsking {
  @TaskLocal package static var isAsking = false
}
