// The notes server, by hand: the same server as `NotesServer`, with the services passed in each
// request's context instead of read from a node. `load.sh` measures the two side by side.
import NotesServerKit

let (configuration, logger) = NotesConfiguration.fromCommandLine()

let services = HandWiredAppServices(
  configuration: configuration, logger: logger, store: NotesStore(), clock: ContinuousClock())

let application = HandWiredApplication.make(services: services)
try await application.runService()
