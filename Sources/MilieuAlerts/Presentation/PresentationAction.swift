import Milieu

/// The engine behind ``ShowAlertAction`` and ``ShowToastAction``: hands items to a host, or to
/// a replacement in tests, and resolves each exactly once.
package struct PresentationAction<Item: Presentable>: Sendable {
  package typealias Outcome = PresentationOutcome<Item.Answer>

  /// Takes an item and a resolution; must resolve it, now or later (a resolution that goes away
  /// unresolved resolves as unanswered).
  package let deliver: @Sendable (Item, Resolution<Item.Answer>?) -> Void
  /// Withdraws an item whose awaiting task was cancelled.
  package let withdraw: @Sendable (PresentationID) -> Void
  /// The node the action was read from through `@Environment`, if any: the action runs there,
  /// so that its issues go to that node's reporter and name that node.
  package private(set) var node: EnvironmentNode?

  /// Delivers to a host held weakly: a host nobody else holds is freed, and then every item
  /// resolves as ``DropReason/hostDeallocated``.
  package init(host: PresentationHost<Item>) {
    deliver = { [weak host] item, resolution in
      guard let host else {
        resolution?.resolve(.dropped(.hostDeallocated))
        return
      }
      host.show(item, resolution: resolution)
    }
    withdraw = { [weak host] id in host?.withdraw(id) }
  }

  package init(
    deliver: @escaping @Sendable (Item, Resolution<Item.Answer>?) -> Void,
    withdraw: @escaping @Sendable (PresentationID) -> Void = { _ in }
  ) {
    self.deliver = deliver
    self.withdraw = withdraw
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

  /// Reports that no host is installed, then drops the item as ``DropReason/noHost``.
  static func noHost(_ what: String, install: String) -> Self {
    Self { item, resolution in
      EnvironmentNode.current[\.issueReporter].report(
        EnvironmentIssue(
          "\(what) \(DiagnosticText.quoted(item.title)) was dropped: no host is installed on the "
            + "path from "
            + "\(EnvironmentNode.current.name.map { "node \(DiagnosticText.quoted($0))" } ?? "the current node") "
            + "to the root. \(install)",
          at: item.callSiteForDiagnostics))
      resolution?.resolve(.dropped(.noHost))
    }
  }

  /// This action, run in `node` whichever node is current when it is called.
  package func bound(to node: EnvironmentNode) -> Self {
    var bound = self
    bound.node = node
    return bound
  }

  /// Runs `body` with the action's node current, if it has one.
  package func inNode<Result>(_ body: () -> Result) -> Result {
    guard let node else { return body() }
    return node.withCurrent(body)
  }

  package func callAsFunction(_ item: Item) {
    inNode { deliver(item, nil) }
  }

  package func callAsFunction(_ item: Item, completion: @escaping @Sendable (Outcome) -> Void) {
    inNode { deliver(item, Resolution(completion)) }
  }

  package func ask(_ item: Item) async -> Outcome {
    await Resolution.awaitOutcome { resolution in
      PresentationAsking.$isAsking.withValue(true) {
        inNode { deliver(item, resolution) }
      }
    } withdraw: {
      withdraw(item.id)
    }
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
