import Milieu
import MilieuAlerts
import MilieuTesting
import Testing

@Suite struct TestEnvironmentTests {
  @Test func valuesAreOverriddenForTheBodyOnly() {
    let outside = EnvironmentNode.current[\.retryLimit]
    withTestEnvironment(.set(\.retryLimit, 9)) {
      #expect(EnvironmentNode.current[\.retryLimit] == 9)
    }
    #expect(EnvironmentNode.current[\.retryLimit] == outside)
  }

  @Test func theAsyncFormCarriesIntoChildTasks() async {
    let seen = await withTestEnvironment(.set(\.retryLimit, 4)) {
      await Task { EnvironmentNode.current[\.retryLimit] }.value
    }
    #expect(seen == 4)
  }

  /// Many tests at once, each with its own value, never see each other's.
  @Test(arguments: 0..<64)
  func parallelTestsNeverSeeEachOthersOverrides(value: Int) async {
    await withTestEnvironment(.set(\.retryLimit, value)) {
      for _ in 0..<20 {
        await Task.yield()
        #expect(EnvironmentNode.current[\.retryLimit] == value)
      }
    }
  }

  @Test(.environment(.set(\.retryLimit, 42)))
  func theTraitScopesTheTest() {
    #expect(EnvironmentNode.current[\.retryLimit] == 42)
  }

  @Test func anUnimplementedActionFailsNamingTheCallSite() {
    let line = #line + 3
    withKnownIssue {
      withTestEnvironment(.set(\.showAlert, .unimplemented)) {
        EnvironmentNode.current[\.showAlert](title: "Unexpected")
      }
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.comments.map(\.rawValue).joined().contains(
          "showAlert is unimplemented here, but the alert \"Unexpected\" was shown")
    }
  }

  @Test func anUnimplementedToastActionFailsToo() {
    withKnownIssue {
      withTestEnvironment(.set(\.showToast, .unimplemented)) {
        EnvironmentNode.current[\.showToast]("Unexpected toast")
      }
    }
  }

  @Test func misuseInsideATestEnvironmentFailsTheTest() {
    withKnownIssue {
      withTestEnvironment {
        _ = AlertData(title: "Two cancels", buttons: [.cancel("A"), .cancel("B")])
      }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("at most one cancel button")
    }
  }
}
