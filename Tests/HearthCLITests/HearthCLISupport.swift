import Foundation
import TestSupport
import Testing

/// Runs the built `hearth` inside the controller's namespace, one command at a time, with its own state folder.
struct HearthCLI: Sendable {
    /// What one command did.
    struct Result: CustomStringConvertible, Sendable {
        var status: Int32
        var output: String
        var errors: String

        /// Standard output as one JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(output)")
        }

        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    let network: NetworkNamespacePair
    let state: String

    /// ``run(_:timeout:)`` on a thread of its own, so a test's wait does not hold a thread of the cooperative pool
    /// (a full test run has two; blocking both stalls every async test in the process).
    func runOffThePool(_ arguments: [String], timeout: TimeInterval = 90) async throws -> Result {
        let cli = self
        return try await offThePool { try cli.run(arguments, timeout: timeout) }
    }

    /// Runs `hearth ARGUMENTS --state STATE` to its end (killed after `timeout` seconds).
    func run(_ arguments: [String], timeout: TimeInterval = 90) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout")
        let errorsURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ipPath)
        process.arguments = network.execArguments(
            inAccessoryNamespace: false,
            [BuiltProducts.path("hearth")] + arguments + ["--state", state]
        )
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
            if let process, process.isRunning, process.processIdentifier == pid { process.terminate() }
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errorsURL, encoding: .utf8)) ?? ""
        )
    }

    /// Starts `hearth ARGUMENTS --state STATE` in the background, to read its output line by line.
    func start(_ arguments: [String], timeout: TimeInterval = 120) throws -> ChildProcess {
        try network.start(
            inAccessoryNamespace: false,
            BuiltProducts.path("hearth"),
            arguments + ["--state", state],
            timeout: timeout
        )
    }

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        return path.path
    }

    /// Runs a program outside the namespaces (hearth-sim's control commands use a Unix socket) to its end.
    static func runLocally(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension ChildProcess {
    /// Reads JSON lines until one satisfies `predicate`, and returns it.
    func receive(until predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let object = try receive()
            if predicate(object) { return object }
        }
    }
}

/// 32 random bytes as hex, a stand-in for another controller's public key.
func randomKeyHex() -> String {
    (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}

/// A test expectation about a program's output that could not be met.
struct OutputError: Error, CustomStringConvertible {
    var description: String
}
