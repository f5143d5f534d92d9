import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP connection to a loopback port, for tests that speak bytes a well-behaved client never would.
public final class RawSocket: @unchecked Sendable {
    // @unchecked: one test owns each socket and uses it from one task at a time.

    /// Why the socket failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with errno's text.
        public var description: String
    }

    /// The file descriptor, -1 once closed.
    public private(set) var descriptor: Int32

    /// Connects to `127.0.0.1:port`; `receiveBuffer` sets a small receive buffer before connecting.
    public init(port: Int, receiveBuffer: Int? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let text = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "connect to port \(port): \(text)")
        }
    }

    deinit { close() }

    /// Sends all of `bytes`.
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// What the peer sent until it closed the connection, or until `timeout` passed.
    ///
    /// `closed` says whether the peer closed (end of stream or reset) within the time.
    ///
    /// The waiting runs on a thread of its own: a blocking read on one of Swift's few concurrency threads (two on
    /// this machine) would starve the servers the tests run in the same process.
    public func readUntilClosed(timeout: Duration) async -> (bytes: [UInt8], closed: Bool) {
        await offThePool { self.blockingReadUntilClosed(timeout: timeout) }
    }

    private func blockingReadUntilClosed(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(
                max(1, min(1000, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            )
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }
            received.append(contentsOf: buffer[0..<count])
        }
        return (received, false)
    }

    /// One whole HTTP/1.1 answer (its head and `Content-Length` bytes of body) as text, or `nil` when none came
    /// within `timeout`; the connection stays open.
    public func readHTTPResponse(timeout: Duration) async -> String? {
        await offThePool { self.blockingReadHTTPResponse(timeout: timeout) }
    }

    private func blockingReadHTTPResponse(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            let text = String(decoding: received, as: UTF8.self)
            if let headEnd = text.range(of: "\r\n\r\n") {
                let head = text[..<headEnd.lowerBound].lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text[headEnd.upperBound...].utf8.count >= length { return text }
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
        return nil
    }

    /// Whether the peer has closed the connection: the end of the stream is readable now (nothing else pending).
    public var isClosedByPeer: Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    /// The text of what the peer sent until it closed, or `nil` when it did not close within `timeout`.
    public func answerThenClose(timeout: Duration) async -> String? {
        let (bytes, closed) = await readUntilClosed(timeout: timeout)
        return closed ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Closes the socket.
    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
