/// How a read of a derived value failed, as the core says where it fails: what the services
/// read through it report, by its kind, never by the words of the issue.
///
/// The core reports a failed read through the reader's ``IssueReporter``, in words; just
/// before, it calls ``note(_:of:at:)``, which tells this task's listener, when services are
/// being read, what failed and how.
enum DerivedReadFailure: Sendable {
  /// The value's build threw this error.
  case threw(any Error)
  /// The value's build read the value again, directly or through others.
  case cycle
  /// The value's build would nest more than ``DerivedBuild/depthLimit`` builds deep.
  case depthLimit

  /// A failure told, with the value's name and its declaration, which the issue that follows
  /// is reported at.
  struct Noted: Sendable {
    let failure: DerivedReadFailure
    let name: String
    let declaration: CallSite
  }

  /// Where the failures of the reads made in this task go: set while services are read.
  ///
  /// An object, not a closure: Swift 6.3.1's optimized builds crash binding a task-local of an
  /// optional closure in a synchronous scope.
  @TaskLocal static var listener: IssueCollector?

  /// Tells the listener, if any, that the read of `name`, declared at `declaration`, failed.
  static func note(_ failure: Self, of name: ValueName, at declaration: CallSite) {
    guard let listener else { return }
    listener.tell(Noted(failure: failure, name: name.description, declaration: declaration))
  }
}
