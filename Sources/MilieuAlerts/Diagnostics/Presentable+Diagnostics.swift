extension Presentable {
  /// What diagnostics call the item: `alert`, `toast`, or `item`.
  static var kindForDiagnostics: String {
    if Self.self == AlertData.self { return "alert" }
    if Self.self == Toast.self { return "toast" }
    return "item"
  }
}
