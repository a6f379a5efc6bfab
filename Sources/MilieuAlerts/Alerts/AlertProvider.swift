/// Anything that can describe an alert, such as an app's enum of the alerts it shows.
///
/// ```swift
/// enum NoteAlert: AlertProvider {
///   case deleteFailed(name: String)
///
///   var alert: AlertData {
///     switch self {
///     case .deleteFailed(let name):
///       AlertData(title: "Could not delete \(name)", buttons: [.cancel("OK")])
///     }
///   }
/// }
///
/// showAlert(NoteAlert.deleteFailed(name: "Groceries"))
/// ```
public protocol AlertProvider {
  /// The alert to show.
  var alert: AlertData { get }
}
