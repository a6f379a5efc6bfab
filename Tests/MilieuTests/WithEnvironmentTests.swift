@_spi(MilieuInternal) import Milieu
import Testing

/// A service that makes another one in a method, after its own `init`: the new one must read
/// the environment of the service that made it, not the process root.
@Suite struct WithEnvironmentTests {
  private struct Folder {
    @Environment(\.retries) var retries
    @Environment(\.greeting) var greeting
  }

  private class Library {
    @Environment(\.retries) private var retries

    /// The node the library reads from, as the tests see it.
    var environmentNode: EnvironmentNode { $retries.node }

    func openFolder() -> Folder {
      withEnvironment(from: self) { Folder() }
    }

    func openFolderOffline() -> Folder {
      withEnvironment(from: self) {
        $0.retries = 0
      } operation: {
        Folder()
      }
    }

    func openFolderLater() async -> Folder {
      await withEnvironment(from: self) {
        await Task.yield()
        return Folder()
      }
    }

    func openFolderNaively() -> Folder { Folder() }
  }

  private struct Plain {}

  private actor Store {
    @Environment(\.retries) var retries
  }

  private final class BranchLibrary: Library {}

  @Test func aServiceMadeInAMethodReadsTheEnvironmentOfTheServiceThatMadeIt() {
    let app = EnvironmentNode("app")
    let library = app.child("library") { $0.retries = 7 }.withCurrent { Library() }
    let folder = library.openFolder()
    #expect(folder.retries == 7)
    #expect(folder.$retries.node === library.environmentNode)
  }

  @Test func overridesGoToAChildOfTheServicesNode() {
    let app = EnvironmentNode("app")
    let node = app.child("library") {
      $0.retries = 7
      $0.greeting = "Hi"
    }
    let library = node.withCurrent { Library() }
    let folder = library.openFolderOffline()
    #expect(folder.retries == 0)
    #expect(folder.greeting == "Hi")
    #expect(folder.$retries.node.parent === node)
    #expect(node[\.retries] == 7, "the override leaked into the service's own node")
  }

  @Test func theChildIsNamedAfterTheServiceItCameFrom() async {
    let library = EnvironmentNode("app").child("library").withCurrent { Library() }
    let folder = library.openFolderOffline()
    let name = "withEnvironment(from: Library)"
    #expect(folder.$retries.node.name == name)
    #expect(folder.$retries.node.explain(\.retries).description.contains("node \"\(name)\""))
    let store = EnvironmentNode("app").withCurrent { Store() }
    let node = await withEnvironment(from: store) {
      $0.retries = 1
    } operation: {
      await Task.yield()
      return EnvironmentNode.current
    }
    #expect(node.name == "withEnvironment(from: Store)")
  }

  @Test func theAsyncFormKeepsTheNodeAcrossSuspensions() async {
    let node = EnvironmentNode("app").child("library") { $0.retries = 5 }
    let library = node.withCurrent { Library() }
    let folder = await library.openFolderLater()
    #expect(folder.retries == 5)
  }

  @Test func theNodeOfAServiceIsTheNodeOfItsWrappers() {
    let node = EnvironmentNode("app").child("library")
    let library = node.withCurrent { Library() }
    #expect(EnvironmentNode.of(library) === node)
    #expect(EnvironmentNode.of(node.withCurrent { Store() }) === node)
    #expect(EnvironmentNode.of(node.withCurrent { BranchLibrary() }) === node)
    #expect(EnvironmentNode.of(Plain()) == nil)
  }

  @Test func aServiceWithoutAnEnvironmentPropertyIsReportedAndTheBodyRunsInTheCurrentNode() {
    let reported = Lock<[EnvironmentIssue]>([])
    let node = EnvironmentNode("app").child("tests") {
      $0.issueReporter = IssueReporter { issue in reported.withLock { $0.append(issue) } }
    }
    let folder = node.withCurrent { withEnvironment(from: Plain()) { Folder() } }
    #expect(folder.$retries.node === node)
    let issues = reported.withLock { $0 }
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("Plain has no @Environment property") == true)
    #expect(issues.first?.location.fileID == "MilieuTests/WithEnvironmentTests.swift")
  }

  /// The decision: a wrapper that binds to the process root, because no scope was current when
  /// its service was made, is not reported, even while other trees exist. The root is where a
  /// program without scopes keeps everything, so a report would fire in correct programs (and
  /// fail their tests); `withEnvironment(from:)` and `$wrapper.node` are the way to see and
  /// avoid it.
  @Test func bindingToTheProcessRootWhileOtherTreesExistIsNotReported() {
    let app = EnvironmentNode("app")
    let library = app.child("library") { $0.retries = 7 }.withCurrent { Library() }
    // Under the test runner, the root's reporter fails this test on any report.
    let folder = library.openFolderNaively()
    #expect(folder.$retries.node === EnvironmentNode.root)
    #expect(folder.retries == 3)
  }
}
