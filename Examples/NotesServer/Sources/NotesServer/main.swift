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
// Milieu starts the store the notes service reads before the server accepts anything, and
// stops it after the server's last request; ServiceGroup runs both and turns SIGTERM and
// SIGINT into a graceful shutdown.
let services = MilieuServiceGroupAdapter(node: app, services: [\.notesService])
exit(
  await NotesServerProcess.run(
    server: application, services: services, readiness: services.readiness,
    shutdownTimeout: configuration.shutdownTimeout, logger: logger))
