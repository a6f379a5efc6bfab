import Milieu
import Testing

/// An object stored in the environment, to watch when it is freed.
final class Payload: Sendable {}

extension EnvironmentValues {
  static let payload = Entry<Payload?>(nil)
  var payload: Payload? {
    get { self[Self.payload] }
    set { self[Self.payload] = newValue }
  }
}

/// A service that reads the payload through a wrapper.
struct PayloadReader {
  @Environment(\.payload) var payload
}

/// A weak reference to a node, one per node of a big subtree.
final class WeakNode: Sendable {
  // nonisolated(unsafe): written once, by `init`.
  nonisolated(unsafe) weak var node: EnvironmentNode?
  init(_ node: EnvironmentNode) { self.node = node }
}

/// Weak-reference checks: what Milieu keeps alive, and what it lets go.
@Suite struct LeakTests {
  /// A 10,000-node subtree (a bushy part and a 1,000-node chain), read everywhere, with
  /// overrides on one node in ten and wrappers bound to some nodes, is freed entirely when its
  /// last reference goes, and the node it hung from forgets it.
  @Test func aDroppedTenThousandNodeSubtreeFreesEveryNode() async {
    let root = EnvironmentNode("kept")
    // A task of its own, so that nothing in the test's frame keeps a node alive; a concurrency
    // thread's stack is also the smaller one, for the chain's release.
    let (weakNodes, weakPayload, readsMatched) = await Task.detached {
      let payload = Payload()
      let subtree = StressTree(nodeCount: 10_000, seed: 0xF4EE, below: root) { index, values in
        if index % 10 == 0 { values.retries = index }
        if index % 1_000 == 0 { values.payload = payload }
      }
      var readers: [PayloadReader] = []
      for (index, node) in subtree.nodes.enumerated() {
        _ = node.values
        if index % 100 == 0 { readers.append(node.withCurrent { PayloadReader() }) }
      }
      let readsMatched = readers.allSatisfy { $0.payload === payload }
      return (subtree.nodes.map(WeakNode.init), WeakReference(payload), readsMatched)
    }.value

    #expect(readsMatched)
    #expect(weakNodes.count == 10_000)
    #expect(weakNodes.count { $0.node != nil } == 0, "nodes still alive")
    #expect(weakPayload.object == nil, "the payload outlived every node that held it")
    #expect(root.treeDescription() == #"node "kept""#)
  }

  /// A 100,000-deep chain held only by its leaf is freed entirely when the leaf goes, without
  /// a frame per node: on a concurrency thread's stack, freeing it recursively would overflow.
  /// A node in the middle that something else still holds keeps itself and its ancestors.
  @Test func aDeepChainHeldByItsLeafIsFreedWhenTheLeafGoes() async {
    let root = EnvironmentNode("kept")
    let (watched, middle) = await Task.detached {
      var watched: [WeakNode] = []
      var middle: EnvironmentNode?
      var leaf = root
      for depth in 1...100_000 {
        leaf = leaf.child("\(depth)") { $0.retries = depth }
        if depth % 1_000 == 0 { watched.append(WeakNode(leaf)) }
        if depth == 50_000 { middle = leaf }
      }
      #expect(leaf[\.retries] == 100_000)
      return (watched, middle)
    }.value

    let alive = watched.map { $0.node != nil }
    #expect(
      alive.prefix(50) == ArraySlice(repeating: true, count: 50),
      "an ancestor of the held node was freed")
    #expect(alive.dropFirst(50).allSatisfy { !$0 }, "nodes below the held one outlived the leaf")
    #expect(middle?[\.retries] == 50_000)
    #expect(middle?.parent?.name == "49999")
  }

  /// Nodes observed by change streams are freed like any other, and each stream finishes.
  @Test func nodesWithLiveChangeStreamsAreFreedAndTheirStreamsFinish() async {
    let root = EnvironmentNode("kept")
    let (weakNodes, streams) = await Task.detached {
      let subtree = StressTree(nodeCount: 1_000, seed: 0x57AE, below: root) { index, values in
        if index % 3 == 0 { values.retries = index }
      }
      let streams = subtree.nodes.enumerated().filter { $0.offset % 10 == 0 }.map {
        $0.element.changes(of: \.retries)
      }
      return (subtree.nodes.map(WeakNode.init), streams)
    }.value

    #expect(weakNodes.count { $0.node != nil } == 0, "observed nodes still alive")
    var finished = 0
    for stream in streams {
      var iterator = stream.makeAsyncIterator()
      _ = await iterator.next()  // the value when the stream was made
      if await iterator.next() == nil { finished += 1 }
    }
    #expect(finished == streams.count)
  }

  /// A wrapper keeps its node, and through it the node's ancestors, alive: nothing else. Its
  /// node's siblings and children go when dropped.
  @Test func aWrapperKeepsItsNodeAndAncestorsAndNothingElse() {
    let (reader, parent, sibling, child) = Self.readerBoundInAFamily()
    #expect(reader.$payload.node.name == "bound")
    #expect(parent.node != nil)
    #expect(sibling.node == nil)
    #expect(child.node == nil)
  }

  /// A reader bound to `bound`, a child of `parent` with a sibling and a child of its own, all
  /// read once; only the reader is returned strongly.
  static func readerBoundInAFamily() -> (
    reader: PayloadReader, parent: WeakNode, sibling: WeakNode, child: WeakNode
  ) {
    let parent = EnvironmentNode("parent")
    let bound = parent.child("bound")
    let sibling = parent.child("sibling")
    let child = bound.child("child")
    _ = (sibling.values, child.values)
    let reader = bound.withCurrent { PayloadReader() }
    _ = reader.payload
    return (reader, WeakNode(parent), WeakNode(sibling), WeakNode(child))
  }

  /// A wrapper keeps the last value it read, like a stored property, until it reads again: then
  /// a value its node no longer holds goes away. (Nodes drop their cached snapshots at once; see
  /// `aRemovedOverrideIsFreedThoughDescendantsReadIt`.)
  @Test func aWrapperLetsGoOfAValueItsNodeNoLongerHoldsAtItsNextRead() {
    let node = EnvironmentNode("node")
    let weakPayload = {
      let payload = Payload()
      node.set(\.payload, to: payload)
      return WeakReference(payload)
    }()
    let reader = node.withCurrent { PayloadReader() }
    #expect(reader.payload === weakPayload.object)

    node.removeOverride(\.payload)
    #expect(reader.payload == nil)
    #expect(weakPayload.object == nil, "the wrapper's cache keeps the removed value alive")
  }

  /// A value an ancestor stops holding goes away, even if descendants read it before and have
  /// not read since.
  @Test func aRemovedOverrideIsFreedThoughDescendantsReadIt() {
    let app = EnvironmentNode("app")
    let leaves = [app.child("a").child("b"), app.child("c") { $0.retries = 1 }]
    let weakPayload = {
      let payload = Payload()
      app.set(\.payload, to: payload)
      return WeakReference(payload)
    }()
    for leaf in leaves { #expect(leaf[\.payload] === weakPayload.object) }

    app.removeOverride(\.payload)
    #expect(weakPayload.object == nil, "a descendant's cached snapshot keeps the value alive")
    for leaf in leaves { #expect(leaf[\.payload] == nil) }
  }

  /// Values that end up in maps of several slots (a node's overrides, the flattened values a
  /// child with overrides of its own reads through, values merged by an update) are freed with
  /// the tree. Found by the address sanitizer: merged maps were once retained once too often.
  @Test func valuesInMapsOfSeveralSlotsAreFreedWithTheirTree() {
    let weakPayload = {
      let payload = Payload()
      let app = EnvironmentNode("app")
      app.update {
        $0.payload = payload
        $0.retries = 1
      }
      app.update { $0.greeting = "Hi" }
      let child = app.child("child") { $0.pairLeft = 1 }
      let grandchild = child.child("grandchild") { $0.retries = 2 }
      #expect(grandchild[\.payload] === payload && grandchild[\.greeting] == "Hi")
      var values = grandchild.values
      values.pairRight = 3
      #expect(values.payload === payload)
      return WeakReference(payload)
    }()
    #expect(weakPayload.object == nil, "a map of several slots was never freed")
  }

  /// Replacing a value frees the old one, at the node and below.
  @Test func aReplacedOverrideIsFreed() {
    let app = EnvironmentNode("app")
    let leaf = app.child("leaf")
    let weakPayload = {
      let payload = Payload()
      app.set(\.payload, to: payload)
      return WeakReference(payload)
    }()
    #expect(leaf[\.payload] === weakPayload.object)
    app.set(\.payload, to: Payload())
    #expect(weakPayload.object == nil, "a replaced value is still alive")
  }
}

/// A weak reference, to check that an object was freed.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  // nonisolated(unsafe): written once, by `init`.
  nonisolated(unsafe) weak var object: Object?

  init(_ object: Object) {
    self.object = object
  }
}

extension EnvironmentValues {
  static let savedValues = Entry(EnvironmentValues())
  var savedValues: EnvironmentValues {
    get { self[Self.savedValues] }
    set { self[Self.savedValues] = newValue }
  }
}

@Suite struct ValuesHoldNoNodeTests {
  /// Values read from a node hold what the node sees, never the node: storing a child's values
  /// in its parent makes no cycle, so both are freed with their last reference.
  @Test func valuesStoredInAnAncestorDoNotKeepTheNodeTheyCameFrom() {
    weak var weakParent: EnvironmentNode?
    weak var weakChild: EnvironmentNode?
    do {
      let parent = EnvironmentNode("a")
      let child = parent.child("c") { $0.retries = 3 }
      parent.set(\.savedValues, to: child.values)
      #expect(parent[\.savedValues].retries == 3)
      (weakParent, weakChild) = (parent, child)
    }
    #expect(weakChild == nil, "the child outlived its last reference")
    #expect(weakParent == nil, "the parent outlived its last reference")
  }
}
