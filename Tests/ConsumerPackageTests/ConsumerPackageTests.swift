import Foundation
import TestSupport
import Testing

/// An app outside this repository: a package that depends on it by version (a local tag) and on `HearthKit` alone,
/// built from scratch in a temporary folder and run against `hearthd --demo` on loopback.
///
/// Its `main.swift` is `Examples/hearthkit-example` as committed, so the example is proven to work as an outside app.
/// The repository is the one the tests run in, at HEAD (tracked files only); `HEARTH_CONSUMER_REPOSITORY` names
/// another checkout to take it from. The build compiles NIO, AsyncHTTPClient and the rest, and takes minutes.
@Suite struct ConsumerPackageTests {
    @Test(.timeLimit(.minutes(45)))
    func aPackageDependingOnHearthKitByVersionBuildsAndListsTheDemoHome() async throws {
        let folder = NSTemporaryDirectory() + "hearth-consumer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ContinuousClock()
        let started = clock.now
        let build = try await Self.onOwnThread { try Self.buildConsumer(in: folder) }
        print("The consumer package built in \(clock.now - started).")
        #expect(build.status == 0, "\(build)")
        guard build.status == 0 else { return }
        let lines = try await Self.onOwnThread { try Self.runConsumer(in: folder) }
        #expect(lines.first == "Demo Home (primary) — you are owner", "\(lines)")
        #expect(lines.contains("  Living Room: Living Room Lamp, Thermostat"), "\(lines)")
        #expect(lines.contains("  Kitchen: Contact Sensor, Outlet"), "\(lines)")
        #expect(lines.contains("  Hallway: Demo Bridge, Door Lock, Motion Sensor, Doorbell"), "\(lines)")
    }

    /// Runs blocking `work` on a thread of its own: minutes of waiting for child processes must not hold one of the
    /// few threads the other suites' async code runs on (their deadlines fail when it does).
    static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }

    /// Makes the tagged repository and the consumer package in `folder`, and builds the consumer.
    static func buildConsumer(in folder: String) throws -> Shell.Result {
        let repository = folder + "/hearth"
        let consumer = folder + "/consumer"
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)

        // The repository at HEAD, as a new repository tagged 1.0.0 (a shallow checkout can be the source too).
        let source =
            ProcessInfo.processInfo.environment["HEARTH_CONSUMER_REPOSITORY"] ?? ChildProcess.repositoryRoot.path
        try Shell.run("/bin/sh", ["-c", "git -C \"$0\" archive HEAD | tar -x -C \"$1\"", source, repository])
        let git = ["-C", repository, "-c", "user.name=Hearth Tests", "-c", "user.email=tests@hearth.invalid"]
        try Shell.run("git", git + ["init", "--quiet"])
        try Shell.run("git", git + ["add", "--all"])
        try Shell.run("git", git + ["commit", "--quiet", "--message", "Hearth at HEAD"])
        try Shell.run("git", git + ["tag", "1.0.0"])

        // The consumer: HearthKit alone, by version; the example's source as its main.swift.
        let sources = consumer + "/Sources/Consumer"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        try manifest(repositoryURL: URL(fileURLWithPath: repository).absoluteString)
            .write(toFile: consumer + "/Package.swift", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: repository + "/Examples/hearthkit-example/main.swift",
            toPath: sources + "/main.swift"
        )
        try values.write(toFile: sources + "/Values.swift", atomically: true, encoding: .utf8)

        // TMPDIR inside the folder: SwiftPM keeps its lock files there, and they go with it. `nice`: the build uses
        // every core for minutes, and the suites running beside it have deadlines; they go first.
        let temporary = folder + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        return try Shell.run(
            "nice",
            ["-n", "19", "swift", "build", "--package-path", consumer, "--scratch-path", consumer + "/.build"],
            environment: ["TMPDIR": temporary],
            timeout: 40 * 60,
            check: false
        )
    }

    /// Starts `hearthd --demo` on loopback, runs the built consumer with the client configuration it wrote, and
    /// returns what the consumer printed before it started watching.
    static func runConsumer(in folder: String) throws -> [String] {
        let state = folder + "/state"
        let hub = try ChildProcess(
            BuiltProducts.path("hearthd"),
            ["--demo", "--state", state, "--port", "0", "--no-user-config", "--log-level", "warning"],
            timeout: 300
        )
        defer { _ = hub.terminate() }
        for _ in 0..<100 {
            if try hub.readLine().hasPrefix("Stop with") { break }
        }
        // stdbuf: the example prints through stdio, which buffers a pipe until exit, and it never exits by itself.
        let app = try ChildProcess(
            "/usr/bin/env",
            ["stdbuf", "-oL", folder + "/consumer/.build/debug/Consumer", state + "/client.json"],
            timeout: 120
        )
        defer { _ = app.terminate() }
        var lines: [String] = []
        for _ in 0..<50 {
            let line = try app.readLine()
            if line.hasPrefix("Watching for changes") { break }
            lines.append(line)
        }
        return lines
    }

    /// The consumer's manifest: one executable that depends on the `HearthKit` product from `1.0.0` on.
    static func manifest(repositoryURL: String) -> String {
        """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: "Consumer",
            platforms: [.macOS(.v15)],
            dependencies: [.package(url: "\(repositoryURL)", from: "1.0.0")],
            targets: [
                .executableTarget(name: "Consumer", dependencies: [.product(name: "HearthKit", package: "hearth")])
            ]
        )

        """
    }

    /// A second file that names HAP's values through `import HearthKit` alone (HearthKit re-exports HAPTypes).
    static let values = """
        import HearthKit

        /// The text of a characteristic's value, by its format; names the re-exported `HAPValue` and `Format`.
        func text(of value: HAPValue?, format: Format) -> String {
            "\\(format.rawValue): \\(value.map(String.init(describing:)) ?? "none")"
        }

        """
}

/// Programs run to their end, their output collected.
enum Shell {
    /// What a program printed and how it exited.
    struct Result: CustomStringConvertible {
        var status: Int32
        var output: String
        var description: String { "exit \(status):\n\(output)" }
    }

    /// Why a checked program failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a program found on PATH to its end, with `environment` added to ours, killed after `timeout` seconds.
    ///
    /// Throws when it cannot start, or when `check` is on and it exits with another status than 0.
    @discardableResult
    static func run(
        _ program: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 300,
        check: Bool = true
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
            if let process, process.isRunning, process.processIdentifier == pid { process.terminate() }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        if check && result.status != 0 {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed with \(result)")
        }
        return result
    }
}
