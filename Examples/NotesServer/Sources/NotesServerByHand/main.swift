// The notes server, by hand: the same server as `NotesServer`, with the services passed in each
// request's context instead of read from a node. `load.sh` measures the two side by side.
import NotesServerKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let (configuration, logger, store) = NotesConfiguration.fromCommandLine()

let services = HandWiredAppServices(
  configuration: configuration, logger: logger, store: store, clock: ContinuousClock())

let application = HandWiredApplication.make(services: services)
exit(
  await NotesServerProcess.run(
    HandStartedStore.around(application, store: store),
    shutdownTimeout: configuration.shutdownTimeout, logger: logger))
