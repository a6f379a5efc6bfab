import HummingbirdTesting
import NotesServerKit
import Testing

/// What the server does with connections, over real sockets on 127.0.0.1.
@Suite("Connections")
struct ConnectionTests {
  /// Short, so that the test is quick, yet long enough that a bystander is read before it is
  /// idle while tests beside it load the machine (200 ms was not, now and then); the bound on
  /// each wait is far longer.
  static let idleTimeout = Duration.seconds(1)

  @Test(arguments: StoreKind.all) func idleConnectionsAreClosedAndABystanderIsAnsweredMeanwhile(
    store: StoreKind
  ) async throws {
    let configuration = NotesConfiguration(idleTimeout: Self.idleTimeout)
    try await withLiveNotesApp(store, configuration: configuration) { port in
      // 100 connections that send nothing, 100 that send half a request's head, and one that
      // is answered and then says nothing more.
      let silent = try (0..<100).map { _ in try RawConnection(port: port) }
      let halfHeads = try (0..<100).map { _ in try RawConnection(port: port) }
      for connection in halfHeads {
        try connection.send("GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Us")
      }
      let answered = try RawConnection(port: port)
      try answered.send("GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: alice\r\n\r\n")

      let bystander = try RawConnection(port: port)
      try bystander.send(
        "GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: bystander\r\nConnection: close\r\n\r\n")
      let answer = await RawConnection.waitUntilClosed([bystander], within: .seconds(10))
      #expect(
        answer.received.first?.hasPrefix("HTTP/1.1 200 OK\r\n") == true,
        "the bystander got \(answer.received), \(answer.stillOpen) still open")
      #expect(answer.received.first?.contains(#""user":"bystander""#) == true)

      let idle = silent + halfHeads + [answered]
      let (received, stillOpen) = await RawConnection.waitUntilClosed(idle, within: .seconds(10))
      #expect(stillOpen == 0, "\(stillOpen) of \(idle.count) idle connections stayed open")
      #expect(received.dropLast().allSatisfy { $0.isEmpty })
      #expect(received.last?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
    }
  }

  /// A body sent a byte at a time: each byte restarted the idle clock, and 20 such requests
  /// held their connections for as long as they went on. The request timeout counts from the
  /// request's head, whatever arrives after it.
  @Test(arguments: StoreKind.all) func aRequestThatTricklesInIsAnswered408AndClosed(
    store: StoreKind
  ) async throws {
    let configuration = NotesConfiguration(
      idleTimeout: .seconds(5), requestTimeout: .milliseconds(300))
    try await withLiveNotesApp(store, configuration: configuration) { port in
      let body = #"{"title": "\#(String(repeating: "slow", count: 250))"}"#
      let connection = try RawConnection(port: port)
      try connection.send(
        "POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: slow\r\n"
          + "Content-Length: \(body.utf8.count)\r\n\r\n")
      // A byte every 20 ms: far quicker than the idle timeout, far slower than the body needs.
      let (response, closed) = await connection.trickle(
        body, pause: .milliseconds(20), within: .seconds(10))
      #expect(closed, "the connection was still open after 10 s")
      #expect(response.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "answered: \(response)")
      #expect(response.lowercased().contains("\r\nconnection: close\r\n"))
      #expect(
        response.hasSuffix(
          #"{"error":{"message":"the request did not arrive whole within 0.3 seconds of its"#
            + #" head","status":408}}"#))

      // Nothing of it was saved, and the server answers the next client.
      let next = try RawConnection(port: port)
      try next.send(
        "GET /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: slow\r\nConnection: close\r\n\r\n")
      let answer = await RawConnection.waitUntilClosed([next], within: .seconds(10))
      #expect(answer.received[0].hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(answer.received[0].hasSuffix(#"{"notes":[]}"#))
    }
  }

  /// A client that sends request after request and never reads an answer: once the server
  /// could write no more, it waited, with no idle clock running, for as long as the client
  /// stayed connected.
  @Test(arguments: StoreKind.all) func aClientThatNeverReadsItsResponsesIsClosed(store: StoreKind)
    async throws
  {
    let configuration = NotesConfiguration(
      idleTimeout: .seconds(60), writeTimeout: .milliseconds(300))
    try await withLiveNotesApp(store, configuration: configuration) { port in
      // A note of 15,000 characters, so that each answer is large and fills buffers quickly.
      let body = #"{"title": "long", "text": "\#(String(repeating: "a", count: 15_000))"}"#
      let writer = try RawConnection(port: port)
      try writer.send(
        "POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: reader\r\nConnection: close\r\n"
          + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
      let created = await RawConnection.waitUntilClosed([writer], within: .seconds(10))
      #expect(created.received[0].hasPrefix("HTTP/1.1 201 Created\r\n"))

      let neverReads = try RawConnection(port: port)
      let closed = await neverReads.sendWithoutReading(
        "GET /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: reader\r\n\r\n", within: .seconds(10))
      #expect(closed, "the server still held the connection after 10 s")

      // The note is whole, and the server answers the next client.
      let next = try RawConnection(port: port)
      try next.send(
        "GET /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: reader\r\nConnection: close\r\n\r\n")
      let answer = await RawConnection.waitUntilClosed([next], within: .seconds(10))
      #expect(answer.received[0].hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(answer.received[0].contains(String(repeating: "a", count: 15_000)))
    }
  }

  /// Hummingbird's HTTP/1 layer refuses these before any router or middleware sees them, so
  /// their answer cannot be the app's JSON: the example's README says so.
  @Test(
    arguments: StoreKind.all,
    [
      "X-Big: \(String(repeating: "a", count: 80 * 1_024))\r\n",
      "X-Note: nul\u{0}inside\r\n",
      "Content-Length: 2\r\nContent-Length: 3\r\n",
    ])
  func aRequestTheHTTPLayerCannotParseGetsABare400AndIsClosed(store: StoreKind, header: String)
    async throws
  {
    try await withLiveNotesApp(store) { port in
      let connection = try RawConnection(port: port)
      try connection.send(
        "POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: alice\r\n\(header)\r\n{}")
      let (received, stillOpen) = await RawConnection.waitUntilClosed(
        [connection], within: .seconds(10))
      #expect(stillOpen == 0)
      let response = try #require(received.first)
      #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "answered: \(response)")
      #expect(response.lowercased().contains("\r\nconnection: close\r\n"))
      #expect(response.lowercased().contains("\r\ncontent-length: 0\r\n"))
      #expect(response.hasSuffix("\r\n\r\n"), "a body followed the head: \(response)")
    }
  }
}
