import Milieu
import Testing

@Suite struct ChangeStreamTests {
  @Test func aStreamStartsWithTheCurrentValueAndReportsEachVisibleChange() async {
    let root = EnvironmentNode("root")
    let node = root.child("node")
    var iterator = node.changes(of: \.retries).makeAsyncIterator()
    #expect(await iterator.next() == 3)

    root.set(\.retries, to: 4)
    #expect(await iterator.next() == 4)

    root.set(\.greeting, to: "unrelated")  // another key: not a change of retries
    node.set(\.retries, to: 5)
    #expect(await iterator.next() == 5)

    root.set(\.retries, to: 6)  // shadowed by the node's own override: not visible here
    node.set(\.retries, to: 7)
    #expect(await iterator.next() == 7)
  }

  @Test func aStreamFinishesWhenItsNodeIsGone() async {
    var node: EnvironmentNode? = EnvironmentNode("short-lived")
    guard let stream = node?.changes(of: \.greeting) else { return }
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == "Hello")
    node = nil
    #expect(await iterator.next() == nil)
  }

  @Test func aStreamDoesNotKeepItsNodeAlive() {
    weak var weakNode: EnvironmentNode?
    let stream: AsyncStream<Int>
    do {
      let node = EnvironmentNode("observed")
      weakNode = node
      stream = node.changes(of: \.retries)
    }
    #expect(weakNode == nil)
    withExtendedLifetime(stream) {}
  }
}
