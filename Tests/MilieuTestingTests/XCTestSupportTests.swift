import Milieu
import MilieuAlerts
import MilieuTesting
import XCTest

/// The recorder works from XCTest too; failures are recorded on the test case.
final class AlertRecorderXCTests: XCTestCase {
  func testChecksAnAlertThenTapsAButtonByTitleUnderXCTest() async throws {
    try await withAlertRecorder { alerts in
      let session = Session()
      session.expire()
      XCTAssertEqual(alerts.title, "Expected Title")
      XCTAssertEqual(alerts.otherButtonTitles, ["Ok", "Sign In"])
      XCTAssertNil(alerts.cancelButtonTitle)
      try await alerts.tap("Sign In")
      XCTAssertTrue(session.isSigningIn)
    }
  }
}
