import Foundation

/// A Python peer (aiohomekit or HAP-python from the repository's `.venv`) run as a child process that speaks
/// one JSON object per line on stdin and stdout.
final class PeerProcess {
    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Interop
        .deletingLastPathComponent()  // HAPTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The virtual environment's interpreter, installed by `scripts/setup-peers.sh`.
    static let python = repositoryRoot.appendingPathComponent(".venv/bin/python")

    /// Whether the peers can run here; with `HEARTH_REQUIRE_PEERS=1` the tests run anyway and fail loudly.
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python.path)
            || ProcessInfo.processInfo.environment["HEARTH_REQUIRE_PEERS"] == "1"
    }

    struct PeerError: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()

    /// Starts `Tests/Peers/<script>` with arguments; the process is killed after `timeout` seconds.
    init(script: String, arguments: [String], timeout: TimeInterval = 60) throws {
        process.executableURL = Self.python
        process.arguments = [Self.repositoryRoot.appendingPathComponent("Tests/Peers/\(script)").path] + arguments
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

    /// Sends one JSON object as a line.
    func send(_ object: [String: String]) throws {
        var line = try JSONSerialization.data(withJSONObject: object)
        line.append(0x0A)
        try input.fileHandleForWriting.write(contentsOf: line)
    }

    /// Reads the next JSON object line; fails with the peer's stderr when it exits first.
    func receive() throws -> [String: Any] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                    throw PeerError(description: "peer sent a line that is not a JSON object")
                }
                return object
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw PeerError(description: "peer exited early: \(stderr.suffix(2000))")
            }
            buffer.append(chunk)
        }
    }

    /// Reads the next object and returns its string field `key`.
    func receive(_ key: String) throws -> String {
        let object = try receive()
        guard let value = object[key] as? String else {
            throw PeerError(description: "peer sent \(object) where \"\(key)\" was expected")
        }
        return value
    }

    /// Waits for the peer to exit and returns its status.
    func waitForExit() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, as the peers print bytes.
    var hexString: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    /// Bytes from hex, or `nil` when the text is not hex.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        self = bytes
    }
}
