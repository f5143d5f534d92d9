// swift-tools-version: 6.1
import PackageDescription

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
    ],
    targets: [
        .executableTarget(
            name: "HAPBenchmarks",
            dependencies: [
                .product(name: "HAP", package: "Hearth"),
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
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "HAPLoad"
        ),
        // Hearth's controller library measured against one accessory, side by side with aiohomekit
        // (scripts/bench-controller.sh).
        .executableTarget(
            name: "ControllerBench",
            dependencies: [
                .product(name: "HAP", package: "Hearth"),
                .product(name: "HAPController", package: "Hearth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "ControllerBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
