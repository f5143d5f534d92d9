import Foundation

/// A child process the tests start and talk to one line at a time, killed when the test is done with it.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `buffer` is touched only by the one test that owns the process, never concurrently.

    /// Why talking to the child failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with the child's stderr when it exited.
        public var description: String
    }

    /// The repository root, found from this file's path.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The peers' Python interpreter, installed into `.venv` by `scripts/setup-peers.sh`.
    public static let python = repositoryRoot.appendingPathComponent(".venv/bin/python").path

    /// Whether the Python peers can run; with `HEARTH_REQUIRE_PEERS=1` tests run anyway and fail loudly.
    public static var arePeersAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python)
            || ProcessInfo.processInfo.environment["HEARTH_REQUIRE_PEERS"] == "1"
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()

    /// The process ID.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments`; the process is killed after `timeout` seconds at the latest.
    public init(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
            if let process, process.isRunning, process.processIdentifier == pid { process.terminate() }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Writes one line to the child's stdin.
    public func send(line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Writes one JSON object as a line.
    public func send(_ object: [String: String]) throws {
        var line = try JSONSerialization.data(withJSONObject: object)
        line.append(0x0A)
        try input.fileHandleForWriting.write(contentsOf: line)
    }

    /// Reads the next line from the child's stdout; fails with its stderr when it exits first.
    public func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                throw Failure(description: "the child exited early: \(standardErrorText().suffix(3000))")
            }
            buffer.append(chunk)
        }
    }

    /// Reads the next line as a JSON object.
    public func receive() throws -> [String: Any] {
        let line = try readLine()
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "the child sent a line that is not a JSON object: \(line)")
        }
        return object
    }

    /// Reads the next object and returns its string field `key`.
    public func receive(_ key: String) throws -> String {
        let object = try receive()
        guard let value = object[key] as? String else {
            throw Failure(description: "the child sent \(object) where \"\(key)\" was expected")
        }
        return value
    }

    /// Everything the child wrote to stderr; call it only after it exited.
    public func standardErrorText() -> String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Sends SIGTERM and waits for the child to exit (SIGKILL after 10 s, for a child that blocks SIGTERM).
    @discardableResult
    public func terminate() -> Int32 {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Closes stdin and waits for the child to exit; returns its status.
    public func waitForExit() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
