import NotesServerKit
import Testing

/// What the server does at its open-file limit: the `NotesServer` executable in a process of its
/// own, started under a low `ulimit -n`, and clients over real sockets on 127.0.0.1.
@Suite("The open-file limit")
struct FileLimitTests {
  /// More connections than the server has files, each with a request, while a well-behaved
  /// client saves notes. Without a limit on connections, the server took every file it had
  /// until none was left, and Swift's runtime, unable to open a file of `/proc`, stopped it
  /// with signal 4 ("workq: registered worker exited prematurely").
  @Test(arguments: StoreKind.all)
  func atItsFileLimitTheServerKeepsFilesForItselfAndKeepsAnswering(store: StoreKind) async throws {
    try await withTestDatabase(store) { database in try await answersAtItsLimit(database) }
  }

  private func answersAtItsLimit(_ database: TestDatabase) async throws {
    // The hard limit too, so that the server cannot raise it: it keeps 32 for its own use and
    // holds at most 32 connections.
    let server = try ServerProcess(
      store: database.location, openFiles: 64, arguments: ["--idle-timeout", "0.5"])
    let port = try await server.port()
    #expect(server.printed.contains("at most 32 connections at once"), "\(server.printed)")

    let others = try (0..<100).map { _ in try RawConnection(port: port) }
    for other in others {
      try other.send("GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: other\r\n\r\n")
    }
    // The server answers as many as it holds, then closes them once idle, and takes the next.
    let firstAnswers = await RawConnection.waitUntilAnswered(
      others, count: 32, within: .seconds(20))
    #expect(firstAnswers.count(where: { !$0.isEmpty }) >= 32)
    try expectRoomLeft(in: server)

    for number in 1...5 {
      let client = try RawConnection(port: port)
      let body = #"{"title": "note \#(number)"}"#
      try client.send(
        "POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: careful\r\nConnection: close\r\n"
          + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
      let answer = await RawConnection.waitUntilClosed([client], within: .seconds(20))
      #expect(answer.received[0].hasPrefix("HTTP/1.1 201 Created\r\n"), "\(answer.received[0])")
      try expectRoomLeft(in: server)
    }

    let (lastAnswers, stillOpen) = await RawConnection.waitUntilClosed(others, within: .seconds(20))
    #expect(stillOpen == 0)
    let answers = zip(firstAnswers, lastAnswers).map { $0 + $1 }
    #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") }, "none was refused")

    let list = try RawConnection(port: port)
    try list.send(
      "GET /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: careful\r\nConnection: close\r\n\r\n")
    let notes = await RawConnection.waitUntilClosed([list], within: .seconds(20)).received[0]
    #expect((1...5).allSatisfy { notes.contains(#""title":"note \#($0)""#) }, "\(notes)")

    #expect(server.isRunning, "the server stopped: \(server.printed)")
    let printed = await server.stop()
    #expect(printed.components(separatedBy: "connections are open, the most allowed").count == 2)
  }

  /// The server raises its soft limit to the hard one, and counts its connections against
  /// the raised limit. (On macOS, whose hard limit is often unlimited, it cannot.)
  @Test(.enabled(if: isLinux), arguments: StoreKind.all)
  func theServerRaisesItsOpenFileLimit(store: StoreKind) async throws {
    try await withTestDatabase(store) { database in try await raisesItsLimit(database) }
  }

  private func raisesItsLimit(_ database: TestDatabase) async throws {
    let hard = OpenFileLimit.current.hard
    let server = try ServerProcess(store: database.location, openFiles: 64, raisable: true)
    _ = try await server.port()
    let raised = OpenFileLimit(soft: hard, hard: hard)
    #expect(
      server.printed.contains(
        "open-file limit \(hard) (was 64, hard limit \(hard)): at most \(raised.connections)"
          + " connections at once"),
      "\(server.printed)")
    _ = await server.stop()
  }

  /// The server has files left for its own use: fewer open than its limit of 64.
  private func expectRoomLeft(in server: ServerProcess) throws {
    #if os(Linux)
      let open = try server.openFiles(below: 64)
      #expect(open < 64, "the server had \(open) of its 64 files open")
    #endif
  }
}

#if os(Linux)
  private let isLinux = true
#else
  private let isLinux = false
#endif
