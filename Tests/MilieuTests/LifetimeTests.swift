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
  /// glibc's `malloc_usable_size`, which the Glibc module does not export.
  @_silgen_name("malloc_usable_size")
  private func mallocUsableSize(_ pointer: UnsafeRawPointer) -> Int

  @Suite struct FootprintTests {
    /// A child with no overrides is one allocation: the node object, at most 96 bytes of heap.
    ///
    /// The smallest of several children is measured: glibc may hand a request a free chunk
    /// larger than it needs, when one is at hand (one run of the whole suite saw 104 bytes),
    /// but a chunk cut to size shows what the node asks for.
    @Test func aChildWithoutOverridesIsOneSmallObject() {
      let root = EnvironmentNode()
      _ = root[\.retries]
      let children = (0..<16).map { _ in root.child() }
      for child in children { _ = child[\.retries] }  // resolving shares the parent's snapshot
      let bytes = children.map { mallocUsableSize(Unmanaged.passUnretained($0).toOpaque()) }.min()
      #expect(bytes.map { $0 <= 96 } == true, "a node takes \(bytes ?? 0) bytes")
    }
  }
#endif
