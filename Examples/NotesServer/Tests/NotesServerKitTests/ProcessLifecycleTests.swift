import Foundation
import NotesServerKit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `NotesServer` executable started, stopped by a signal and restarted, each in a process
/// of its own: what an operator does to it, and what it must survive.
@Suite("Starting and stopping the server process")
struct ProcessLifecycleTests {
  /// The shutdown budget the server is given, and within which it must have exited.
  static let shutdownTimeout = 10

  /// Eight clients write notes as fast as they are answered; a SIGTERM arrives once 80 are
  /// answered. Every note answered 201 must be in the database after a restart, no response
  /// may be cut off halfway, and the process must exit 0 within its shutdown budget.
  @Test(arguments: StoreKind.all)
  func aSIGTERMDuringALoadOfWritesLosesNoAnsweredNote(store: StoreKind) async throws {
    try await withTestDatabase(store) { database in
      let server = try ServerProcess(
        store: database.location,
        arguments: ["--shutdown-timeout", "\(Self.shutdownTimeout)"])
      let port = try await server.port()
      let load = WriteLoad(port: port, writers: 8)
      let writing = Task { await load.run() }
      #expect(await load.waitUntilAnswered(80, within: .seconds(30)), "\(server.printed)")
      let signalled = ContinuousClock.now
      server.send(SIGTERM)
      let status = await server.exitStatus(within: .seconds(Self.shutdownTimeout + 5))
      let stoppedAfter = ContinuousClock.now - signalled
      let outcomes = await writing.value

      #expect(status == 0, "exit status \(String(describing: status)): \(server.printed)")
      #expect(stoppedAfter < .seconds(Self.shutdownTimeout), "it took \(stoppedAfter)")
      let cutOff = outcomes.flatMap(\.exchanges).filter {
        if case .cutOff = $0 { true } else { false }
      }
      #expect(cutOff.isEmpty, "responses cut off halfway: \(cutOff)")
      let answered = outcomes.map(\.createdTitles)
      #expect(answered.map(\.count).reduce(0, +) >= 80)
      let order = ["stopping the", "stopped the", "stopped: the server and every service"]
      let positions = order.compactMap { server.printed.range(of: $0)?.lowerBound }
      #expect(positions.count == 3 && positions == positions.sorted(), "\(server.printed)")

      let restarted = try ServerProcess(store: database.location)
      let restartedPort = try await restarted.port()
      for (writer, titles) in answered.enumerated() {
        let list = try RawConnection(port: restartedPort)
        let exchange = list.exchange(
          "GET /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: writer-\(writer)\r\n\r\n",
          within: .seconds(10))
        guard case .answered(200, let body) = exchange else {
          Issue.record("the restarted server answered \(exchange)")
          continue
        }
        let kept = try JSONDecoder().decode(NoteList.self, from: Data(body.utf8)).notes
        let missing = Set(titles).subtracting(kept.map(\.title))
        #expect(missing.isEmpty, "writer-\(writer) lost notes it was answered 201 for: \(missing)")
      }
      #expect(await restarted.stop().contains("stopped: the server and every service"))
    }
  }

  // Only PostgreSQL's store takes long to start, trying to connect until its timeout.
  #if PostgreSQL
    /// A SIGTERM while the store is starting: the server stops what started and exits 143,
    /// saying so, without waiting for the start to give up. The store points at a port nothing
    /// listens on, so that it keeps trying to connect until its start timeout.
    @Test func aSIGTERMWhileStartingStopsWhatStartedAndExits143() async throws {
      let server = try ServerProcess(
        store: "postgres://notes@127.0.0.1:\(try Self.closedPort())/notes",
        arguments: ["--start-timeout", "60"])
      #expect(await server.waitForOutput(containing: "starting the PostgreSQL notes store"))
      let signalled = ContinuousClock.now
      server.send(SIGTERM)
      let status = await server.exitStatus(within: .seconds(20))
      #expect(status == 143, "exit status \(String(describing: status)): \(server.printed)")
      #expect(ContinuousClock.now - signalled < .seconds(15))
      #expect(server.printed.contains("stopped while starting, by a signal"), "\(server.printed)")
      #expect(!server.printed.contains("listening on"), "it served: \(server.printed)")
    }
  #endif

  /// A store whose database cannot be reached at start: the server names it, serves nothing
  /// and exits 69. Neither needs a database server: an SQLite file in a folder that does not
  /// exist, a PostgreSQL port nothing listens on.
  @Test(arguments: StoreKind.built)
  func aDatabaseDownAtStartIsNamedAndExits69(store: StoreKind) async throws {
    let location =
      switch store {
      case .sqlite: "/nonexistent-\(UUID().uuidString)/notes.sqlite"
      case .postgresql: "postgres://notes@127.0.0.1:\(try Self.closedPort())/notes"
      }
    let server = try ServerProcess(store: location, arguments: ["--start-timeout", "1"])
    let status = await server.exitStatus(within: .seconds(20))
    #expect(status == 69, "exit status \(String(describing: status)): \(server.printed)")
    // Milieu names the service and the path that leads to it; the store names its database.
    let named =
      switch store {
      case .sqlite: "the SQLite notes store at \(location): cannot open"
      case .postgresql: "the PostgreSQL notes store at 127.0.0.1:"
      }
    #expect(
      server.printed.contains(
        "a service could not start: notesStore (notesService → notesStore) failed to start: \(named)"
      ), "\(server.printed)")
    #expect(!server.printed.contains("listening on"), "it served: \(server.printed)")
  }

  /// A port on 127.0.0.1 that nothing listens on: bound by a socket, then closed.
  static func closedPort() throws -> Int {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else { throw RawConnection.Failure(description: "bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// Clients that each write notes, one after the other on a kept-alive connection, until the
/// server stops answering.
final class WriteLoad: Sendable {
  /// What one writer saw.
  struct Outcome: Sendable {
    /// Every exchange, in order.
    var exchanges: [RawConnection.Exchange] = []
    /// The titles of the notes answered 201.
    var createdTitles: [String] = []
  }

  private let port: Int
  private let writers: Int
  private let answered = Atomic<Int>(0)

  init(port: Int, writers: Int) {
    self.port = port
    self.writers = writers
  }

  /// Runs the writers until each meets a closed connection, or writes 5,000 notes.
  func run() async -> [Outcome] {
    await withTaskGroup(of: (Int, Outcome).self) { group in
      for writer in 0..<writers {
        group.addTask {
          (writer, await onThreadOfItsOwn { self.write(as: writer) })
        }
      }
      var outcomes = Array(repeating: Outcome(), count: writers)
      for await (writer, outcome) in group { outcomes[writer] = outcome }
      return outcomes
    }
  }

  /// Waits, at most `limit`, until `count` notes have been answered 201.
  func waitUntilAnswered(_ count: Int, within limit: Duration) async -> Bool {
    await eventually(within: limit) { answered.load(ordering: .relaxed) >= count }
  }

  private func write(as writer: Int) -> Outcome {
    var outcome = Outcome()
    guard var connection = try? RawConnection(port: port) else { return outcome }
    for number in 0..<5_000 {
      let title = "writer \(writer) note \(number)"
      let body = #"{"title": "\#(title)"}"#
      let exchange = connection.exchange(
        "POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: writer-\(writer)\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
        within: .seconds(30))
      outcome.exchanges.append(exchange)
      switch exchange {
      case .answered(201, _):
        outcome.createdTitles.append(title)
        answered.add(1, ordering: .relaxed)
      case .answered:
        // Answered, but not created (a 503 while the store closes): keep going on a new
        // connection only if this one is still open; the server closes it when it stops.
        continue
      case .closedBeforeAnswer, .cutOff:
        // The server closed this connection; a new one is refused once it stops accepting.
        guard let next = try? RawConnection(port: port) else { return outcome }
        connection = next
      }
    }
    return outcome
  }
}
