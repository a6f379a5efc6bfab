import Milieu

// README: begin
nonisolated extension EnvironmentValues {
  static let salutation = Entry("Hello")
  var salutation: String {
    get { self[Self.salutation] }
    set { self[Self.salutation] = newValue }
  }
}

struct Greeter {
  @Environment(\.salutation) var salutation
  func greet(_ name: String) -> String { "\(salutation), \(name)!" }
}
// README: end

/// The README's first example, on the main actor; `print` receives what it prints.
func runFirstExample(_ print: (Any) -> Void) {
  let app = EnvironmentNode("app")
  let paris = app.child("paris") { $0.salutation = "Bonjour" }

  let greeter = paris.withCurrent { Greeter() }  // binds to `paris`
  print(greeter.greet("Ada"))  // Bonjour, Ada!

  app.set(\.salutation, to: "Hi")  // paris still shadows it
  print(greeter.greet("Ada"))  // Bonjour, Ada!
  print(app.withCurrent { Greeter() }.greet("Ada"))  // Hi, Ada!
}
