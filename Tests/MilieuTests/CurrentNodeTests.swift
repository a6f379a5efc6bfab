import Testing

@testable import Milieu

@Suite struct CurrentNodeTests {
  struct Failure: Error, Equatable { let code: Int }

  @Test func outsideAnyScopeTheProcessRootIsCurrent() {
    #expect(EnvironmentNode.current === EnvironmentNode.root)
  }

  @Test func scopesNestAndRestore() {
    let outer = EnvironmentNode("outer")
    let inner = outer.child("inner")
    outer.withCurrent {
      #expect(EnvironmentNode.current === outer)
      inner.withCurrent { #expect(EnvironmentNode.current === inner) }
      #expect(EnvironmentNode.current === outer)
    }
    #expect(EnvironmentNode.current === EnvironmentNode.root)
  }

  @Test func aThrowRestoresThePreviousNodeAndKeepsItsType() {
    let outer = EnvironmentNode("outer")
    let inner = outer.child("inner")
    outer.withCurrent {
      do throws(Failure) {
        try inner.withCurrent { () throws(Failure) in throw Failure(code: 42) }
        Issue.record("the scope did not throw")
      } catch {
        // `error` is typed `Failure`: typed throws pass through unchanged.
        #expect(error.code == 42)
      }
      #expect(EnvironmentNode.current === outer)
    }
  }

  @Test func theAsyncFormRestoresAfterAThrow() async {
    let node = EnvironmentNode("async")
    await #expect(throws: Failure(code: 7)) {
      try await node.withCurrent { () async throws(Failure) in
        await Task.yield()
        #expect(EnvironmentNode.current === node)
        throw Failure(code: 7)
      }
    }
    #expect(EnvironmentNode.current === EnvironmentNode.root)
  }

  @Test func theAsyncFormReturnsItsResult() async {
    let node = EnvironmentNode("async").child { $0.retries = 12 }
    let value = await node.withCurrent {
      await Task.yield()
      return EnvironmentNode.current[\.retries]
    }
    #expect(value == 12)
  }

  @Test func aTaskInheritsTheNodeAndADetachedTaskDoesNot() async {
    let node = EnvironmentNode("scope")
    let (inherited, detached) = await node.withCurrent {
      let inherited = Task { EnvironmentNode.current }
      let detached = Task.detached { EnvironmentNode.current }
      return (await inherited.value, await detached.value)
    }
    #expect(inherited === node)
    #expect(detached === EnvironmentNode.root)
  }

  @Test func aTaskCreatedInASynchronousScopeInherits() async {
    let node = EnvironmentNode("sync scope")
    let task = node.withCurrent { Task { EnvironmentNode.current } }
    #expect(await task.value === node)
  }

  @Test func childTasksInheritTheNode() async {
    let node = EnvironmentNode("group")
    let seen = await node.withCurrent {
      await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<4 { group.addTask { EnvironmentNode.current === node } }
        return await group.reduce(into: [Bool]()) { $0.append($1) }
      }
    }
    #expect(seen == [true, true, true, true])
  }
}

/// The current node is read through the runtime's `swift_task_localValueGet`, bound by name
/// because `TaskLocal.get()` costs a budgeted read a third more: it must answer what `get()`
/// answers, or the binding no longer matches the runtime.
@Suite struct TaskLocalBindingTests {
  @Test func theBoundEntryPointAnswersWhatTaskLocalGetAnswers() async {
    #expect(taskLocalReference(EnvironmentNode.scoped) == nil)
    #expect(EnvironmentNode.scoped.get() == nil)
    let outer = EnvironmentNode("outer")
    let inner = outer.child("inner")
    outer.withCurrent {
      #expect(taskLocalReference(EnvironmentNode.scoped) === outer)
      inner.withCurrent {
        #expect(taskLocalReference(EnvironmentNode.scoped) === EnvironmentNode.scoped.get())
        #expect(taskLocalReference(EnvironmentNode.scoped) === inner)
      }
    }
    await inner.withCurrent {
      let inTask = await Task { taskLocalReference(EnvironmentNode.scoped) }.value
      #expect(inTask === inner)
      let detached = await Task.detached { taskLocalReference(EnvironmentNode.scoped) }.value
      #expect(detached == nil)
    }
  }
}
