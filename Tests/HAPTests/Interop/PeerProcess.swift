import Foundation
import TestSupport

/// Starts the Python side of an interoperability test (`Tests/Peers/<script>`) with the repository's `.venv`.
enum PeerProcess {
    /// Whether the peers can run here.
    static var isAvailable: Bool { ChildProcess.arePeersAvailable }

    /// Starts a peer script; it speaks one JSON object per line.
    static func start(script: String, arguments: [String]) throws -> ChildProcess {
        let path = ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/\(script)").path
        return try ChildProcess(ChildProcess.python, [path] + arguments, timeout: 60)
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
