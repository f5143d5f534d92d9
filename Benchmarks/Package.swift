// swift-tools-version: 6.1
import PackageDescription

/// What a benchmark that runs a hub and accessory servers in its own process links.
let inProcessHub: [Target.Dependency] = [
    "Hub", "HomeGraph", "HAP", "HAPTypes", "HAPAccessoryServer", "HAPController", "Simulator",
].map { .product(name: $0, package: "Hearth") }

// Hearth's benchmarks, a package of their own so that the main build never fetches package-benchmark.
// Run: `swift package --disable-sandbox benchmark --target HAPBenchmarks` (or `scripts/benchmarks.sh`).
let package = Package(
    name: "HearthBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, because a path dependency's identity is its directory's name (a worktree, a clone, a CI checkout).
        .package(name: "Hearth", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "HAPBenchmarks",
            dependencies: [
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPTypes", package: "Hearth"),
                .product(name: "HomeGraph", package: "Hearth"),
                .product(name: "HomeStore", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "HAPBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // A HAP load client on blocking sockets (pairs, then reads and writes as fast as the accessory answers).
        .executableTarget(
            name: "HAPLoad",
            dependencies: [
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPTypes", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "HAPLoad"
        ),
        // The NIO floor row of scripts/bench-controller.sh: the CPU one request and answer costs through a NIO
        // channel, an actor on its loop and one continuation, against an echo server (Benchmarks/peers/socket_floor.py
        // --serve): what any controller built like Hearth's pays before HTTP, encryption and JSON.
        .executableTarget(
            name: "NIOFloor",
            dependencies: [
                .product(name: "HAPController", package: "Hearth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "NIOFloor"
        ),
        // Hearth's controller library measured against one accessory, side by side with aiohomekit
        // (scripts/bench-controller.sh).
        .executableTarget(
            name: "ControllerBench",
            dependencies: [
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPTypes", package: "Hearth"),
                .product(name: "HAPController", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "ControllerBench"
        ),
        // The hub's API under load against a `hearthd` child process (build it too: `--product hearthd`): read and
        // change latency, reads per second, event fan-out, and a characteristic write end to end through a simulated
        // accessory (hearth-sim's library, in the benchmark's process) on loopback.
        .executableTarget(
            name: "HubAPILoad",
            dependencies: [
                .product(name: "HearthAPI", package: "Hearth"),
                .product(name: "HomeGraph", package: "Hearth"),
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPTypes", package: "Hearth"),
                .product(name: "HAPAccessoryServer", package: "Hearth"),
                .product(name: "Simulator", package: "Hearth"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "HubAPILoad"
        ),
        // Issue 17's automation benchmark (build with -c release): an accessory event → the scene's first write at
        // an in-process accessory server, with 10 to 10,000 triggers in the home.
        .executableTarget(
            name: "hearth-automation-bench",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
            ] + inProcessHub,
            path: "AutomationBench"
        ),
        // The hub's benchmarks for issue 7 (build with -c release): value updates, configuration, open time, memory.
        .executableTarget(
            name: "hearth-hub-bench",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
            ] + inProcessHub,
            path: "HubBench"
        ),
        // A scene's writes at once against the same writes one at a time (issue 17; build with -c release): 10
        // in-process accessory servers of 5 writable characteristics, p50/p99 of Hub.runActionSet and of sequential
        // Hub.writeCharacteristics calls.
        .executableTarget(
            name: "hearth-scene-bench",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
            ] + inProcessHub,
            path: "SceneBench"
        ),
        // Issue 19's relay benchmark (build with -c release, and `--product hearth-relay`): a `hearth-relay` child
        // process on loopback, with HubLinks, ClientForwarders and an echo target in this process; added latency,
        // relay CPU per forwarded frame, relay RSS per idle home, and many active clients (scripts/bench-relay.sh).
        .executableTarget(
            name: "hearth-relay-bench",
            dependencies: [
                .product(name: "Relay", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "RelayBench"
        ),
        // Issue 19's pairing and pair-verify benchmark (build with -c release): a `hearthd` child process's secure
        // listener against HearthKit's client, each side's CPU apart.
        .executableTarget(
            name: "hearth-remote-bench",
            dependencies: [
                .product(name: "HearthKit", package: "Hearth"),
                .product(name: "HearthAPI", package: "Hearth"),
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPController", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "RemoteBench"
        ),
        // Issue 18's plain-language benchmark (build with -c release): a 500-accessory home from four hearth-sim
        // bridges, imported without sockets; the name index's build, each sentence's latency, sentences per second.
        .executableTarget(
            name: "hearth-commands-bench",
            dependencies: ["Commands", "HomeGraph", "HAPTypes", "Simulator"].map {
                .product(name: $0, package: "Hearth")
            },
            path: "CommandsBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
