import Milieu

extension EnvironmentNode {
  /// The nearest ``AlertHost`` installed on this node or above it, if any.
  ///
  /// The same as `node[\.alertHost]`: the host a `showAlert` read from this node reaches.
  ///
  /// ```swift
  /// let app = EnvironmentNode("app")
  /// app.installAlertHost()
  /// let request = app.child("request")
  /// request.alertHost === app.alertHost  // true: the request reaches the app's host
  /// ```
  public var alertHost: AlertHost? { self[\.alertHost] }

  /// The nearest ``ToastHost`` installed on this node or above it, if any.
  ///
  /// The same as `node[\.toastHost]`: the host a `showToast` read from this node reaches.
  ///
  /// ```swift
  /// let toasts = app.installToastHost()
  /// app.child("request").toastHost === toasts  // true
  /// ```
  public var toastHost: ToastHost? { self[\.toastHost] }
}
