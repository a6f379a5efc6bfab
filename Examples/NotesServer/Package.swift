// swift-tools-version: 6.1
import PackageDescription

// NotesServer: Milieu in a Hummingbird server, with a node per request.
//
// This is a package of its own so that nothing the example needs ever reaches a user of Milieu:
// the root package stays free of dependencies. Run it from this directory:
//
//     swift build                           # once; .build/debug/NotesServer then starts at once
//     swift run NotesServer --port 8080     # the server, Milieu's per-request nodes, on SQLite
//     swift run --traits PostgreSQL NotesServer --store postgres://…   # or on PostgreSQL
//     swift run NotesServerByHand           # the same server, services passed by hand
//     swift run NotesServerWithDependencies # the same server, with swift-dependencies
//     swift test                            # the tests, on SQLite
//     ./test-both-stores.sh                 # the tests, on SQLite and PostgreSQL
//     ./load.sh                             # the three servers under wrk, side by side
//
// `NotesServerKit` holds Milieu's variant and the by-hand one, and everything the three share;
// `NotesServerWithDependenciesKit` holds only what the swift-dependencies variant does its own
// way, so that the other two builds link nothing of swift-dependencies. Each executable is only
// its `main`: the builds differ in nothing but how a request reaches its services.

let package = Package(
  name: "NotesServer",
  platforms: [.macOS(.v15)],
  // The default build keeps its notes in SQLite and compiles no TLS or cryptography; the
  // PostgreSQL store is a trait, `swift build --traits PostgreSQL`, since postgres-nio brings
  // swift-crypto and swift-nio-ssl, each with its own copy of BoringSSL (772 C and assembly
  // files between them).
  traits: [
    .trait(
      name: "PostgreSQL",
      description: "The PostgreSQL store (--store postgres://…), on postgres-nio."),
    .default(enabledTraits: []),
  ],
  dependencies: [
    // Named, so that target dependencies do not depend on the directory the clone lives in.
    .package(name: "Milieu", path: "../.."),
    // No traits: neither Hummingbird's swift-configuration support nor full Foundation is
    // needed here, and leaving them out shortens the build.
    .package(
      url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
    // The command line and the environment, read as one configuration. No traits: JSON, YAML
    // and reloading files are not needed.
    .package(url: "https://github.com/apple/swift-configuration", exact: "1.4.0", traits: []),
    .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    // Hummingbird's own dependencies, named for what it does not re-export: `HTTPField.Name`,
    // and the channel and HTTP parts that `SlowClientHandler` handles.
    .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
    // For the third variant. No traits: they would add the Clocks and CombineSchedulers packages
    // and Foundation's dependency values, which nothing here reads. Only the `Dependencies`
    // product is used: the macros would compile swift-syntax.
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1", traits: []),
    // The stores: an SQLite file through sqlite-nio, which compiles its own copy of SQLite, so
    // that the default store needs nothing installed, and runs on the NIO thread pool and event
    // loops the server already has; and, with the PostgreSQL trait, PostgreSQL through
    // postgres-nio's `PostgresClient`. A build without the trait resolves postgres-nio but
    // compiles none of it.
    .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
    // `ServiceGroup` runs the server and the stores; logs and spans carry the request.
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", exact: "1.7.3"),
    .package(url: "https://github.com/apple/swift-service-context", exact: "1.5.1"),
  ],
  targets: [
    .target(
      name: "NotesServerKit",
      dependencies: [
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "Hummingbird", package: "hummingbird"),
        // For the HTTP/1 server's configuration: its timeouts and its connection limit.
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(
          name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
        .product(name: "SQLiteNIO", package: "sqlite-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "ServiceContextModule", package: "swift-service-context"),
      ]
    ),
    .target(
      name: "NotesServerWithDependenciesKit",
      dependencies: [
        "NotesServerKit",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .executableTarget(name: "NotesServer", dependencies: ["NotesServerKit"]),
    .executableTarget(name: "NotesServerByHand", dependencies: ["NotesServerKit"]),
    .executableTarget(
      name: "NotesServerWithDependencies",
      dependencies: [
        "NotesServerKit", "NotesServerWithDependenciesKit",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .testTarget(
      name: "NotesServerKitTests",
      dependencies: [
        "NotesServerKit",
        "NotesServerWithDependenciesKit",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "Milieu", package: "Milieu"),
        .product(name: "MilieuTesting", package: "Milieu"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(
          name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
        .product(name: "SQLiteNIO", package: "sqlite-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        .product(name: "ServiceContextModule", package: "swift-service-context"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
