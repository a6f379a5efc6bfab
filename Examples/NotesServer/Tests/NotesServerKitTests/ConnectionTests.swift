import HummingbirdTesting
import NotesServerKit
import Testing

/// What the server does with connections, over real sockets on 127.0.0.1.
@Suite("Connections")
struct ConnectionTests {
  /// Short, so that the test is quick; the bound on each wait is far longer.
  static let idleTimeout = Duration.milliseconds(200)

  @Test func idleConnectionsAreClosedAndABystanderIsAnsweredMeanwhile() async throws {
    let configuration = NotesConfiguration(idleTimeout: Self.idleTimeout)
    try await withLiveNotesApp(configuration: configuration) { port in
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
      #expect(answer.received.first?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
      #expect(answer.received.first?.contains(#""user":"bystander""#) == true)

      let idle = silent + halfHeads + [answered]
      let (received, stillOpen) = await RawConnection.waitUntilClosed(idle, within: .seconds(10))
      #expect(stillOpen == 0, "\(stillOpen) of \(idle.count) idle connections stayed open")
      #expect(received.dropLast().allSatisfy { $0.isEmpty })
      #expect(received.last?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
    }
  }

  /// Hummingbird's HTTP/1 layer refuses these before any router or middleware sees them, so
  /// their answer cannot be the app's JSON: the example's README says so.
  @Test(arguments: [
    "X-Big: \(String(repeating: "a", count: 80 * 1_024))\r\n",
    "X-Note: nul\u{0}inside\r\n",
    "Content-Length: 2\r\nContent-Length: 3\r\n",
  ])
  func aRequestTheHTTPLayerCannotParseGetsABare400AndIsClosed(header: String) async throws {
    try await withLiveNotesApp { port in
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
