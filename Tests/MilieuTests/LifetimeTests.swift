import Milieu
import Testing

@Suite struct LifetimeTests {
  @Test func aChildKeepsItsParentAlive() {
    weak var weakParent: EnvironmentNode?
    let child: EnvironmentNode
    do {
      let parent = EnvironmentNode("parent")
      weakParent = parent
      child = parent.child("child")
    }
    #expect(weakParent != nil)
    #expect(child.parent === weakParent)
  }

  @Test func aDroppedSubtreeIsFreed() {
    let root = EnvironmentNode("root")
    weak var weakChild: EnvironmentNode?
    weak var weakGrandchild: EnvironmentNode?
    do {
      let child = root.child("child") { $0.retries = 1 }
      let grandchild = child.child("grandchild")
      weakChild = child
      weakGrandchild = grandchild
      #expect(grandchild[\.retries] == 1)
    }
    #expect(weakChild == nil)
    #expect(weakGrandchild == nil)
  }

  @Test func anEnvironmentWrapperKeepsOnlyItsNode() {
    weak var weakNode: EnvironmentNode?
    do {
      let node = EnvironmentNode("bound")
      weakNode = node
      let service = node.withCurrent { GreetingService() }
      #expect(service.greeting == "Hello")
    }
    #expect(weakNode == nil)
  }

  @Test func aVeryDeepChainIsFreedWithoutExhaustingTheStack() async {
    // Runs on a concurrency thread, whose stack is smaller than the main thread's.
    let freed = await Task.detached {
      weak var weakLeaf: EnvironmentNode?
      do {
        var node = EnvironmentNode()
        for _ in 0..<10_000 { node = node.child() }
        weakLeaf = node
      }
      return weakLeaf == nil
    }.value
    #expect(freed)
  }
}

#if os(Linux)
  @Suite struct FootprintTests {
    /// A child with no overrides is one object of at most 96 bytes.
    ///
    /// Read from the class's metadata, the size the runtime asks the allocator for: what
    /// `malloc_usable_size` reports depends on the free chunks the heap has at hand, and in a
    /// full parallel run every one of 16 nodes once got a 104-byte chunk.
    @Test func aChildWithoutOverridesIsOneSmallObject() {
      // The instance size, a 32-bit field 24 bytes into class metadata where there is no
      // Objective-C interoperability (after the kind, the superclass, the flags and the
      // instance address point).
      let metadata = unsafeBitCast(EnvironmentNode.self as AnyClass, to: UnsafeRawPointer.self)
      let size = Int(metadata.load(fromByteOffset: 24, as: UInt32.self))
      #expect(size > 16, "the field read is not the instance size: \(size)")
      #expect(size <= 96, "a node takes \(size) bytes")
    }
  }
#endif
