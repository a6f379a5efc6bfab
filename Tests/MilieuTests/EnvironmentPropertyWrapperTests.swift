import Milieu
import Testing

final class GreetingService {
  @Environment(\.greeting) var greeting
  @Environment(\.retries) var retries
}

struct GreetingValue {
  @Environment(\.greeting) var greeting
}

struct MixedValues {
  @Environment(\.ratio) var ratio
  @Environment(\.isOn) var isOn
  @Environment(\.mode) var mode
  @Environment(\.limit) var limit
  @Environment(\.greeting) var greeting
}

actor GreetingActor {
  @Environment(\.greeting) var greeting
  func read() -> String { greeting }
}

@Suite struct EnvironmentPropertyWrapperTests {
  @Test func aClassReadsTheNodeCurrentAtItsCreationAfterTheScopeEnded() {
    let node = EnvironmentNode("service").child { $0.greeting = "Bonjour" }
    let service = node.withCurrent { GreetingService() }
    #expect(EnvironmentNode.current === EnvironmentNode.root)
    #expect(service.greeting == "Bonjour")
    #expect(service.$greeting.node === node)
  }

  @Test func structsAndActorsBindTheSameWay() async {
    let node = EnvironmentNode().child { $0.greeting = "Hallo" }
    let (value, actor) = node.withCurrent { (GreetingValue(), GreetingActor()) }
    #expect(value.greeting == "Hallo")
    #expect(await actor.read() == "Hallo")
  }

  @Test func readsAreLive() {
    let parent = EnvironmentNode()
    let node = parent.child()
    let service = node.withCurrent { GreetingService() }
    #expect(service.retries == 3)
    parent.set(\.retries, to: 4)
    #expect(service.retries == 4)
    node.set(\.retries, to: 5)
    #expect(service.retries == 5)
    node.removeOverride(\.retries)
    #expect(service.retries == 4)
  }

  /// One-word values (here `Double`, `Bool` and a payload-free enum) are cached apart from larger
  /// ones (`Int?` is nine bytes, `String` is not plain bits): both kinds read live, and each
  /// reads back exactly the value written.
  @Test func oneWordAndLargerValuesBothReadLive() {
    let node = EnvironmentNode()
    let service = node.withCurrent { MixedValues() }
    #expect(service.ratio == 0.5 && service.isOn == false && service.mode == .fast)
    #expect(service.limit == nil && service.greeting == "Hello")
    node.update {
      $0.ratio = -1.25
      $0.isOn = true
      $0.mode = .careful
      $0.limit = -7
      $0.greeting = "Hej"
    }
    #expect(service.ratio == -1.25 && service.isOn == true && service.mode == .careful)
    #expect(service.limit == -7 && service.greeting == "Hej")
    node.set(\.limit, to: nil)
    #expect(service.limit == nil)
  }

  @Test func anEscapingClosureReadsTheBoundNode() async {
    let node = EnvironmentNode().child { $0.greeting = "Ciao" }
    let value = node.withCurrent { GreetingValue() }
    let read = Task.detached { value.greeting }
    #expect(await read.value == "Ciao")
  }

  @Test func outsideAnyScopeTheWrapperReadsTheProcessRoot() {
    #expect(GreetingService().$greeting.node === EnvironmentNode.root)
  }
}
