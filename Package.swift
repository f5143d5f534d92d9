// swift-tools-version: 6.1
import Foundation
import PackageDescription

// `HAPArithmetic` (SRP's big numbers) is compiled with `-O` even in debug builds: unoptimised it is over a hundred
// times slower (one 3072-bit power: 0.6 s instead of 5 ms), and every test that pairs would take seconds.
// `@_optimize(speed)` on its functions does not help in a debug build (measured: no faster than plain -Onone),
// and `-O` is only expressible as an unsafe flag, which SwiftPM refuses in a package used as a versioned
// dependency. So the flag is applied only when this package is built from its own folder (the root, or a local
// path dependency such as Benchmarks/), not from a dependency checkout (`.build/checkouts/…`, or Xcode's
// `SourcePackages/checkouts/…`); an app's release build optimises it anyway.
let isDependencyCheckout = ["/.build/checkouts/", "/SourcePackages/checkouts/"].contains {
    Context.packageDirectory.contains($0)
}
let optimisedInDebug: [SwiftSetting] = isDependencyCheckout ? [] : [.unsafeFlags(["-O"])]

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HAPTypes", targets: ["HAPTypes"]),
        .library(name: "HAP", targets: ["HAP"]),
        .library(name: "HAPArithmetic", targets: ["HAPArithmetic"]),
        .library(name: "DNSSD", targets: ["DNSSD"]),
        .library(name: "HAPAccessoryServer", targets: ["HAPAccessoryServer"]),
        .library(name: "Simulator", targets: ["Simulator"]),
        .library(name: "HAPController", targets: ["HAPController"]),
        .library(name: "HomeGraph", targets: ["HomeGraph"]),
        .library(name: "HomeStore", targets: ["HomeStore"]),
        .library(name: "Commands", targets: ["Commands"]),
        .library(name: "Hub", targets: ["Hub"]),
        .library(name: "HubServer", targets: ["HubServer"]),
        .library(name: "HearthAPI", targets: ["HearthAPI"]),
        .library(name: "HearthKit", targets: ["HearthKit"]),
        .library(name: "Relay", targets: ["Relay"]),
        .executable(name: "hearthd", targets: ["hearthd"]),
        .executable(name: "hearth-relay", targets: ["hearth-relay"]),
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-sim", targets: ["hearth-sim"]),
        .executable(name: "hearthkit-example", targets: ["hearthkit-example"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        // Already built for async-http-client (through swift-nio-extras); the hub makes its web certificate with it.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
    ],
    targets: [
        // Big-number arithmetic for SRP. Optimised in debug builds too, unless a dependency (see the top).
        .target(
            name: "HAPArithmetic",
            exclude: ["README.md"],
            swiftSettings: optimisedInDebug
        ),
        // ChaCha20-Poly1305 for session frames on the BoringSSL swift-crypto links in (HAP depends on Crypto), one
        // reused context per direction.
        .target(
            name: "CHAPCipher",
            exclude: ["README.md"]
        ),
        // SRP's variable-base power on the same BoringSSL (BN_mod_exp_mont_consttime).
        .target(
            name: "CHAPModExp",
            exclude: ["README.md"]
        ),
        // HAP's values: UUIDs, values, formats, units, permissions, the accessory database, status codes,
        // categories, device ids, the type catalog. No dependencies, so apps can use it (through HearthKit).
        .target(
            name: "HAPTypes",
            exclude: ["README.md"]
        ),
        // The protocol machinery: TLV8, SRP, pairing, session frames, HTTP framing, setup codes; no I/O.
        .target(
            name: "HAP",
            dependencies: [
                "HAPTypes",
                "CHAPCipher",
                "CHAPModExp",
                "HAPArithmetic",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        // A QR code encoder for setup payloads and its drawing on a terminal; no dependencies.
        .target(name: "SetupQR", exclude: ["README.md"]),
        // glibc's malloc_trim, so the accessory server can give freed heap pages back after rare large work.
        .target(name: "CMallocTrim", exclude: ["README.md"]),
        // Durable file replacement (temporary file, fsync, rename, fsync folder), mode 0600, for keys and state.
        .target(name: "AtomicFiles", exclude: ["README.md"]),
        // mDNS / DNS-SD responder and browser on SwiftNIO UDP, bound only to the interfaces it is given.
        .target(
            name: "DNSSD",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The accessory role of HAP over IP on SwiftNIO: sessions, HTTP routes, events, pairing state.
        .target(
            name: "HAPAccessoryServer",
            dependencies: [
                "HAP",
                "HAPTypes",
                "AtomicFiles",
                "CMallocTrim",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The controller role of HAP over IP on SwiftNIO: pairing, verified sessions, reads, writes, events.
        .target(
            name: "HAPController",
            dependencies: [
                "AtomicFiles",
                "HAP",
                "HAPTypes",
                "DNSSD",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // A TCP or Unix-socket connection as an async byte stream with backpressure, and a listener that serves and
        // closes its connections; on SwiftNIO channel handlers.
        .target(
            name: "ByteStreams",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["README.md"]
        ),
        // The relay between a hub and its remote clients: a WebSocket server that forwards opaque byte streams, the
        // hub's outbound link and the client's local forwarder, on Hummingbird and WSClient. Holds no key.
        .target(
            name: "Relay",
            dependencies: [
                "ByteStreams",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The relay program: the relay server with its limits, optionally over TLS.
        .executableTarget(
            name: "hearth-relay",
            dependencies: [
                "ByteStreams",
                "Relay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["README.md"]
        ),
        // Simulated accessories: descriptions, presets, behaviours, a backend for the accessory server.
        .target(
            name: "Simulator",
            dependencies: [
                "ByteStreams",
                "HAP",
                "HAPTypes",
                "HAPAccessoryServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["README.md"]
        ),
        // The accessory simulator: serves simulated accessories as a real HAP accessory.
        .executableTarget(
            name: "hearth-sim",
            dependencies: [
                "HAP",
                "HAPTypes",
                "AtomicFiles",
                "HAPAccessoryServer",
                "DNSSD",
                "Simulator",
                "SetupQR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The command-line app on HearthKit: the home commands, `hearth watch`, plus `hearth hap …` and `hearth demo`.
        .executableTarget(
            name: "hearth",
            dependencies: [
                "AtomicFiles",
                "Commands",
                "HearthKit",
                "HearthAPI",
                "HomeGraph",
                "HAP",
                "HAPTypes",
                "HAPController",
                "DNSSD",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The home model: homes, rooms, zones, accessories, groups, scenes, users; operations and change events.
        .target(
            name: "HomeGraph",
            dependencies: ["HAPTypes"],
            exclude: ["README.md"]
        ),
        // What makes a home act by itself: sun and calendar times, the trigger index and the evaluation engine.
        // Pure (no I/O, no clock of its own): the hub feeds it changes and times and carries out what it decides.
        .target(
            name: "Automation",
            dependencies: ["HomeGraph", "HAPTypes"],
            exclude: ["README.md"]
        ),
        // Plain language against a home: a name index and rules over the catalog's types, words from a data file.
        // Pure (no I/O): the hub or `hearth say --home` carries out what it reads.
        .target(
            name: "Commands",
            dependencies: ["HomeGraph", "HAPTypes"],
            exclude: ["README.md"]
        ),
        // The home graph on disk: an encrypted operation log and snapshots in SQLite through GRDB.
        .target(
            name: "HomeStore",
            dependencies: [
                "HomeGraph",
                "HAP",
                "CHAPCipher",
                "HAPTypes",
                "AtomicFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        // The keeper of the home: the only writer of the graph, rights, accessories through the HAP controller.
        .target(
            name: "Hub",
            dependencies: [
                "Automation",
                "Commands",
                "AtomicFiles",
                "HomeGraph",
                "HomeStore",
                "HAP",
                "HAPTypes",
                "HAPController",
                "DNSSD",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The hub's API: HTTP/1.1 with JSON and a WebSocket of change events on Hummingbird, bearer-token accounts.
        .target(
            name: "HubServer",
            dependencies: [
                "ByteStreams",
                "HearthAPI",
                "Hub",
                "HomeGraph",
                "HomeStore",
                "HAP",
                "HAPTypes",
                "HAPController",
                "AtomicFiles",
                "SetupQR",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            // The page's files are embedded by scripts/embed-web.sh (WebEmbedded/), not as resources.
            exclude: ["README.md", "Web"]
        ),
        // The API's request and response bodies, shared by the server and its clients; no HTTP stack.
        .target(
            name: "HearthAPI",
            dependencies: ["Commands", "HomeGraph", "HAPTypes", "AtomicFiles"],
            exclude: ["README.md"]
        ),
        // The Swift library apps use: an HTTP client of the API and a HomeManager mirroring the homes live.
        .target(
            name: "HearthKit",
            dependencies: [
                "ByteStreams",
                "Commands",
                "Relay",
                "HAP",
                "HearthAPI",
                "HomeGraph",
                "HAPTypes",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // A short app on HearthKit: prints the homes, then every change as it happens (docs/hearthkit.md).
        .executableTarget(
            name: "hearthkit-example",
            dependencies: ["HearthKit"],
            path: "Examples/hearthkit-example"
        ),
        // The hub daemon: argument parsing, the state folder, the demo home, graceful shutdown.
        .executableTarget(
            name: "hearthd",
            dependencies: [
                "Automation",
                "ByteStreams",
                "Relay",
                "DNSSD",
                "HearthAPI",
                "Hub",
                "HubServer",
                "HomeGraph",
                "HAP",
                "HAPTypes",
                "HAPAccessoryServer",
                "Simulator",
                "AtomicFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["README.md"]
        ),
        // A child process for the kill -9 tests: applies seeded random operations (to a HomeStore, or through a Hub),
        // prints each acknowledged one.
        .executableTarget(
            name: "hearth-store-torture",
            dependencies: [
                "Automation", "HomeStore", "HomeGraph", "HAP", "HAPTypes", "Hub", "TestFixtures", "TestSupport",
            ],
            path: "Tests/StoreTorture"
        ),
        // A hub in a child process for the namespace test: browses one interface, pairs, reports change events.
        .executableTarget(
            name: "hearth-hub-probe",
            dependencies: [
                "Hub", "HomeGraph", "HAP", "HAPTypes", "HAPController", "DNSSD",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HubProbe"
        ),
        // What several test targets start from: a simulated bridge on a real accessory server, a stream recorder, the
        // test lamp, and a hub with a home and accounts.
        .target(
            name: "TestFixtures",
            dependencies: [
                "HAP", "HAPTypes", "HAPAccessoryServer", "HomeGraph", "Hub", "HubServer", "Simulator",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestFixtures",
            exclude: ["README.md"]
        ),
        // Helpers shared by the test targets: child processes, network namespaces, built products.
        .target(
            name: "TestSupport",
            dependencies: [
                "ByteStreams",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "DNSSDTests",
            dependencies: [
                "DNSSD",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // hearth-sim run as a program, checked by aiohomekit inside network namespaces.
        .testTarget(
            name: "HearthSimTests",
            dependencies: ["TestSupport"]
        ),
        // The built `hearth hap` run as a program against HAP-python and hearth-sim inside network namespaces, and
        // the `hearth` module's argument reading and tree drawing.
        .testTarget(
            name: "HearthCLITests",
            dependencies: [
                "hearth", "TestFixtures", "HAP", "HAPTypes", "HAPController", "TestSupport", "HomeStore", "HomeGraph",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // HearthKit against a live HubServer on loopback, and the `hearth` app against a running `hearthd --demo`.
        .testTarget(
            name: "HearthKitTests",
            dependencies: [
                "TestFixtures", "HearthKit", "HearthAPI", "HubServer", "Hub", "HomeGraph", "HAP", "HAPTypes",
                "TestSupport", "DNSSD", "Relay", "ByteStreams",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HAPAccessoryServerTests",
            dependencies: [
                "HAPAccessoryServer", "HAP", "HAPTypes", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SimulatorTests",
            dependencies: [
                "ByteStreams", "Simulator", "TestSupport", "HAPAccessoryServer", "HAP", "HAPTypes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HAPControllerTests",
            dependencies: [
                "TestFixtures", "HAPController", "HAPAccessoryServer", "Simulator", "HAP", "HAPTypes", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The plain-language engine against three homes and a corpus of sentences with their expected meaning.
        .testTarget(
            name: "CommandsTests",
            dependencies: ["Commands", "HomeGraph", "HAPTypes"],
            resources: [.copy("Corpus")]
        ),
        .testTarget(
            name: "AutomationTests",
            dependencies: ["Automation", "HomeGraph", "HAPTypes"]
        ),
        .testTarget(
            name: "HomeGraphTests",
            dependencies: ["HomeGraph", "HAP", "HAPTypes", "TestFixtures", "TestSupport"]
        ),
        .testTarget(
            name: "HomeStoreTests",
            dependencies: [
                "HomeStore", "HomeGraph", "HAP", "HAPTypes", "TestFixtures", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "HubTests",
            dependencies: [
                "TestFixtures", "Automation", "Commands", "Hub", "HomeGraph", "HomeStore", "HAP", "HAPTypes",
                "HAPController", "HAPAccessoryServer",
                "Simulator",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The API over real HTTP and WebSockets on loopback.
        .testTarget(
            name: "HubServerTests",
            dependencies: [
                "ByteStreams", "TestFixtures", "Commands", "HubServer", "HearthAPI", "Hub", "HomeGraph", "HAP",
                "HAPTypes", "TestSupport", "Simulator", "DNSSD",
                "HAPAccessoryServer", "AtomicFiles",
                "HAPController", "SetupQR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // A package outside this repository that depends on it by version and on HearthKit alone, built from
        // scratch in a temporary folder and run against `hearthd --demo` (takes minutes: it compiles NIO & co).
        .testTarget(
            name: "ConsumerPackageTests",
            dependencies: ["TestSupport"]
        ),
        // The relay on loopback: streams, limits, the hub's proof, and two relays behind HAProxy.
        .testTarget(
            name: "RelayTests",
            dependencies: [
                "ByteStreams", "Relay", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SetupQRTests",
            dependencies: ["SetupQR"]
        ),
        .testTarget(
            name: "HAPTests",
            dependencies: ["HAP", "HAPTypes", "HAPArithmetic", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
