// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HAP", targets: ["HAP"]),
        .executable(name: "hearth", targets: ["hearth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2")
    ],
    targets: [
        // Big-number arithmetic for SRP. Always optimised: a debug build of this code is hundreds of times
        // slower, which would make every test that pairs take seconds.
        .target(
            name: "HAPArithmetic",
            swiftSettings: [.unsafeFlags(["-O"])]
        ),
        // ChaCha20-Poly1305 for session frames on OpenSSL libcrypto (libssl-dev), one reused context per direction.
        .target(
            name: "CHAPCipher",
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        // The protocol core: codecs and state machines, no I/O.
        .target(
            name: "HAP",
            dependencies: [
                "CHAPCipher",
                "HAPArithmetic",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.process("Resources")]
        ),
        // The command-line app; for now it shows the protocol core working end to end.
        .executableTarget(
            name: "hearth",
            dependencies: ["HAP"]
        ),
        .testTarget(
            name: "HAPTests",
            dependencies: ["HAP", "HAPArithmetic"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
