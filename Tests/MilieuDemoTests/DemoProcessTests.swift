import MilieuTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Running the demo from tests")
struct DemoProcessTests {
  // Tests run in parallel. A demo started by one test used to inherit the pipes another test
  // had just made for its own demo, so each demo held the other's standard input open, neither
  // saw the end of its input, and both were killed after 60 seconds (seen under the address
  // sanitizer, where starting a demo is slow enough for two starts to meet).
  @Test("A pipe closes on exec, so a process another test starts cannot hold it open")
  func pipesCloseOnExec() throws {
    let (read, write) = try makePipe()
    defer {
      close(read)
      close(write)
    }
    #expect(fcntl(read, F_GETFD) & FD_CLOEXEC != 0)
    #expect(fcntl(write, F_GETFD) & FD_CLOEXEC != 0)
  }
}
