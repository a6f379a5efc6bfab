import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Milieu
import Testing

// The repository README's "Using Milieu in a server" shows the code between the README markers,
// with the imports above; its own test checks that the two never drift apart, and this one that
// the code works.

// README: begin
extension EnvironmentValues {
  static let user = Entry("anonymous")
  var user: String {
    get { self[Self.user] }
    set { self[Self.user] = newValue }
  }

  static let salutation = Entry("Hello")
  var salutation: String {
    get { self[Self.salutation] }
    set { self[Self.salutation] = newValue }
  }
}

/// Gives each request a child of the app's node, current while the request is handled.
struct RequestNodeMiddleware<Context: RequestContext>: RouterMiddleware {
  let app: EnvironmentNode

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let user = request.headers.first { $0.name.canonicalName == "x-user" }?.value
    // One name for every request: only diagnostics read it.
    let node = app.child("request") { $0.user = user ?? "anonymous" }
    return try await node.withCurrent { try await next(request, context) }
  }
}

/// A service: built once from the app's values, shared by every request, told by each call
/// whom to greet.
struct Greeter {
  let salutation: String
  func greeting(for user: String) -> String { "\(salutation), \(user)!" }
}

extension EnvironmentValues {
  static let greeter = Derived { values in Greeter(salutation: values.salutation) }
  var greeter: Greeter { self[Self.greeter] }
}
// README: end

@Suite("The README's server example")
struct ReadmeServerExampleTests {
  @Test func eachRequestGreetsItsOwnUser() async throws {
    // README: begin
    let app = EnvironmentNode("app")
    app.set(\.salutation, to: "Welcome")

    let router = Router()
    router.add(middleware: RequestNodeMiddleware(app: app))
    router.get("hello") { _, _ in
      let request = EnvironmentNode.current.values  // the request's node, read once
      return request.greeter.greeting(for: request.user)
    }
    // README: end

    try await Application(router: router).test(.router) { client in
      var headers = HTTPFields()
      headers[try #require(HTTPField.Name("X-User"))] = "ada"
      let greeted = try await client.execute(uri: "/hello", method: .get, headers: headers)
      #expect(String(buffer: greeted.body) == "Welcome, ada!")
      let anonymous = try await client.execute(uri: "/hello", method: .get)
      #expect(String(buffer: anonymous.body) == "Welcome, anonymous!")
    }
  }
}
