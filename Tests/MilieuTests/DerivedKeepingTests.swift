import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// Where a built derived value is kept, so that every reader of the same inputs finds it, and
/// for how long: through writes made while it is built, through frames whose addresses come
/// back, and no longer than the writes it was built from.
@Suite struct DerivedKeepingTests {
  /// A request whose frame is allocated where a freed request's was still finds the app's value
  /// current: one set of inputs has one live value.
  @Test func aFrameAtAFreedFramesAddressFindsTheValueKeptForItsInputs() {
    let log = BuildLog()
    let app = EnvironmentNode("app")
    app.update {
      $0.buildLog = log
      $0.greeting = "app"
    }
    let kept = app[\.repository]
    do {
      let overriding = app.child("first request") { $0.client = Client(name: "other") }
      #expect(overriding[\.repository] !== kept)
    }
    // The same size of frame as the first request's, freed just now.
    let request = app.child("second request") { $0.retries = 1 }
    #expect(request[\.repository] === kept)
    #expect(app[\.repository] === kept)
    #expect(log.count(of: "repository") == 2)
  }

}

final class ClientHolder: Sendable {
  let client: Client
  let retries: Int

  init(client: Client, retries: Int) {
    self.client = client
    self.retries = retries
  }
}
