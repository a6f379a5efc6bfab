import Milieu

extension EnvironmentNode {
  /// The nearest ``AlertHost`` installed on this node or above it, if any.
  @available(
    *, deprecated,
    message: "Read node[\\.alertHost], as every environment value is read: one name for one value."
  )
  public var alertHost: AlertHost? { self[\.alertHost] }

  /// The nearest ``ToastHost`` installed on this node or above it, if any.
  @available(
    *, deprecated,
    message: "Read node[\\.toastHost], as every environment value is read: one name for one value."
  )
  public var toastHost: ToastHost? { self[\.toastHost] }
}
