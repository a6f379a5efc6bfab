import Milieu
import MilieuAlerts

extension ShowAlertAction {
  /// An action that fails the test on any call, naming the call site of the alert.
  ///
  /// Install it where the code under test must not show alerts:
  ///
  /// ```swift
  /// withTestEnvironment(.set(\.showAlert, .unimplemented)) {
  ///   Importer().importQuietly()  // any showAlert here fails the test
  /// }
  /// ```
  ///
  /// The alert resolves as `DropReason.unanswered`.
  public static var unimplemented: ShowAlertAction {
    TestRunnerReporter.connect()
    return ShowAlertAction { alert, resolve in
      TestRunnerReporter.fail(
        "showAlert is unimplemented here, but the alert \"\(alert.title)\" was shown. "
          + "Install an AlertRecorder to check alerts, or stop showing it.",
        at: alert.callSite)
      resolve(.dropped(.unanswered))
    }
  }
}

extension ShowToastAction {
  /// An action that fails the test on any call, naming the call site of the toast.
  ///
  /// ```swift
  /// withTestEnvironment(.set(\.showToast, .unimplemented)) { … }
  /// ```
  public static var unimplemented: ShowToastAction {
    TestRunnerReporter.connect()
    return ShowToastAction { toast, resolve in
      TestRunnerReporter.fail(
        "showToast is unimplemented here, but the toast \"\(toast.message)\" was shown. "
          + "Install a toast host with a test clock, or stop showing it.",
        at: toast.callSite)
      resolve(.dropped(.unanswered))
    }
  }
}
