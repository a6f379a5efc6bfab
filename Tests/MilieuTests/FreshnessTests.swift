import Foundation
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// A write reaches only the subtree that can see it, and re-resolving starts from the nearest
/// node above that overrides something: the invariants of "How Milieu stays fresh and frees
/// memory", checked through the nodes' versions and caches.
@Suite struct FreshnessTests {
  @Test func aWriteBumpsTheVersionsOfItsSubtreeAndNoOtherNode() {
    let root = EnvironmentNode("root")
    let written = root.child("written")
    let below = written.child("below")
    let sibling = root.child("sibling")
    let elsewhere = EnvironmentNode("elsewhere")
    let nodes = [root, written, below, sibling, elsewhere]
    let before = nodes.map(\.version)

    written.set(\.retries, to: 7)

    let bumped = zip(nodes, zip(before, nodes.map(\.version))).filter { $1.0 != $1.1 }
    #expect(bumped.map(\.0.name) == ["written", "below"])
    #expect(below[\.retries] == 7 && sibling[\.retries] == 3 && root[\.retries] == 3)
  }

  @Test func aWrapperKeepsItsCachedValueAcrossWritesItCannotSee() {
    let app = EnvironmentNode("app")
    app.set(\.retries, to: 4)
    let request = app.child("request")
    let service = request.withCurrent { RetriesReader() }
    #expect(service.retries == 4)
    let cachedAt = service.$retries.node.lock.version

    app.child("other request").set(\.retries, to: 9)
    EnvironmentNode("another tree").set(\.retries, to: 10)
    #expect(request.lock.version == cachedAt, "a write elsewhere staled the wrapper's node")
    #expect(service.retries == 4)

    app.set(\.retries, to: 5)
    #expect(request.lock.version > cachedAt)
    #expect(service.retries == 5)
  }

  /// After a write at the top of a 1,000-deep chain, the first read at the bottom resolves from
  /// the written node directly: the 998 nodes in between, which override nothing, stay
  /// unresolved.
  @Test func theFirstReadAfterAnAncestorWriteSkipsNodesWithoutOverrides() {
    let top = EnvironmentNode("top")
    var chain = [top]
    for _ in 0..<1_000 { chain.append(chain[chain.count - 1].child()) }
    let bottom = chain[chain.count - 1]
    #expect(bottom[\.retries] == 3)

    top.set(\.retries, to: 8)
    #expect(bottom[\.retries] == 8)

    let between = chain.dropFirst().dropLast()
    #expect(
      between.allSatisfy { node in node.withLockedState { state, _ in state.resolved == nil } })
    #expect(bottom.above == top.identity)
  }

  @Test func aNodeBecomesTheSourceBelowItWhenItGainsItsFirstOverrideAndStopsWhenItLosesIt() {
    let top = EnvironmentNode("top") { $0.retries = 1 }
    let middle = top.child("middle")
    let lower = middle.child("lower")
    let bottom = lower.child("bottom")
    #expect(bottom[\.retries] == 1)
    #expect([middle, lower, bottom].map(\.above) == [top.identity, top.identity, top.identity])

    middle.set(\.greeting, to: "Hi")
    #expect(
      [middle, lower, bottom].map(\.above) == [top.identity, middle.identity, middle.identity])
    #expect(bottom[\.greeting] == "Hi" && bottom[\.retries] == 1)

    middle.removeOverride(\.greeting)
    #expect([middle, lower, bottom].map(\.above) == [top.identity, top.identity, top.identity])
    #expect(bottom[\.greeting] == "Hello" && bottom[\.retries] == 1)
  }

  /// A child starts resolved over what its parent saw when it was made: a later write to the
  /// parent must still reach it.
  @Test func aChildSeesWritesToItsParentMadeAfterIt() {
    let parent = EnvironmentNode("parent")
    parent.set(\.retries, to: 2)
    let child = parent.child { $0.greeting = "Hey" }
    parent.set(\.retries, to: 6)
    #expect(child[\.retries] == 6 && child[\.greeting] == "Hey")
    let later = parent.child()
    #expect(later[\.retries] == 6)
  }
}

extension EnvironmentNode {
  /// A root made with overrides, for the tests.
  convenience init(_ name: String, configure: (inout EnvironmentValues) -> Void) {
    self.init(name)
    update(configure)
  }

  /// How many writes have reached the node, plus one.
  var version: UInt64 { lock.version }

  /// The node's identity, to compare with `above`.
  var identity: ObjectIdentifier? { ObjectIdentifier(self) }

  /// The identity of the node this one's inherited values come from.
  var above: ObjectIdentifier? {
    withLockedState { state, _ in state.above.map(ObjectIdentifier.init) }
  }
}

/// Issue 40, defect 10: what one thread reads decides nothing for a wrapper on another.
extension FreshnessTests {
  /// A wrapper that reads a value while another thread reads one built anew on every read
  /// keeps what it read: each thread counts its own such reads. Before, one process-wide count
  /// made the wrapper read again at every read while any thread read such a value.
  @Test func aWrapperCachesWhileAnotherThreadReadsAValueBuiltOnEveryRead() {
    let node = EnvironmentNode("node")
    node.set(\.retries, to: 1)
    let otherRead = DispatchSemaphore(value: 0)
    let gate = Atomic<Bool>(false)
    let waiting = EnvironmentValues.Derived { values in
      // The wrapper's read is under way: let the other thread read, and wait for it.
      if gate.exchange(false, ordering: .acquiringAndReleasing) { otherRead.wait() }
      return values.retries + 1
    }
    let wrapper = node.withCurrent {
      Environment<Int>(node: node) { values, _ in
        StoredValue(values[waiting])
      }
    }
    gate.store(true, ordering: .releasing)
    let other = Thread {
      while gate.load(ordering: .acquiring) {}
      _ = node.values.ticket
      otherRead.signal()
    }
    other.start()
    #expect(wrapper.wrappedValue == 2)
    let cached = wrapper.reader.cache.value(atVersion: node.lock.version, as: Int.self)
    #expect(cached == 2, "the wrapper keeps what it read")
  }
}
