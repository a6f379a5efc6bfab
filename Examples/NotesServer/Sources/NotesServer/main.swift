// The notes server, Milieu's variant: one app node for what the process shares, and a child of
// it for each request (see `RequestEnvironmentMiddleware`).
import Milieu
import NotesServerKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let (configuration, logger, store) = NotesConfiguration.fromCommandLine()

let app = EnvironmentNode("notes-server")
app.update { values in
  values.configuration = configuration
  values.logger = logger
  values.notesStore = store
  values.clock = ContinuousClock()
  values.notify = .logging
}

let application = app.withCurrent { NotesApplication.make() }
// Milieu starts the store the notes service reads, then the server runs; after the server's
// last request the store stops. ServiceGroup turns SIGTERM and SIGINT into that shutdown.
let service = MilieuServiceGroupAdapter(node: app, services: [\.notesService], server: application)
exit(
  await NotesServerProcess.run(
    service, shutdownTimeout: configuration.shutdownTimeout, logger: logger))
