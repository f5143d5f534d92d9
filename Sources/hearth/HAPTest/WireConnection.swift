import Foundation
import HAP

#if canImport(Glibc)
    import Glibc
#endif

/// Why a tester connection failed, in words that say what was seen on the wire.
struct WireError: Error, CustomStringConvertible {
    /// What happened, as a sentence fragment.
    var description: String
}

/// One TCP connection to an accessory, driven one request at a time with the bytes as they are: the tester's view.
///
/// Blocking sockets with a receive timeout keep every exchange in plain sight; after pair-verify, requests are sealed
/// and answers opened with ``SessionCipher``. EVENT messages that arrive while an answer is awaited are kept in
/// ``events``.
final class WireConnection {
    /// The address and port connected to.
    let host: String
    let port: Int
    private var socket: Int32 = -1
    private var cipher: SessionCipher?
    private var parser = HTTPResponseParser()
    /// EVENT messages received and not yet taken.
    private(set) var events: [HTTPResponse] = []
    /// How long to wait for an answer.
    var timeout: Double

    /// Connects to `host`:`port` (an IPv4 address).
    init(host: String, port: Int, timeout: Double = 10) throws(WireError) {
        self.host = host
        self.port = port
        self.timeout = timeout
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw WireError(description: "\(host) is not an IPv4 address")
        }
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw WireError(description: "no socket could be made") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw WireError(description: "no TCP connection to \(host):\(port) (\(String(cString: strerror(errno))))")
        }
        socket = descriptor
    }

    deinit { close() }

    /// Whether pair-verify has ended and bytes are sealed.
    var isEncrypted: Bool { cipher != nil }

    /// Seals every later byte in both directions (after pair-verify M4, hap-protocol.md §4).
    func encrypt(with keys: SessionKeys) {
        cipher = SessionCipher(keys: keys, role: .controller)
    }

    /// Closes the socket.
    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    /// Sends one request and returns its answer.
    func send(_ request: HTTPRequest) throws(WireError) -> HTTPResponse {
        var request = request
        if request.headers["Host"] == nil { request.headers.add(name: "Host", value: "\(host):\(port)") }
        let plaintext = request.encoded()
        try write(cipher == nil ? plaintext : sealed(plaintext))
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let message = try nextMessage() {
                if message.kind == .event {
                    events.append(message)
                    continue
                }
                return message
            }
            guard try receive(until: deadline) else {
                throw WireError(description: "no answer to \(request.method) \(request.target) within \(timeout) s")
            }
        }
    }

    /// A POST of a pairing TLV8 body; the answer's TLV8, or an error naming its HTTP status.
    func postTLV8(_ path: String, _ body: TLV8) throws(WireError) -> TLV8 {
        let response = try send(
            HTTPRequest(
                method: .post,
                target: path,
                headers: ["Content-Type": HTTPContentType.pairingTLV8.rawValue],
                body: body.encoded()
            )
        )
        guard response.status.code == 200 else {
            throw WireError(description: "POST \(path) answered HTTP \(response.status.code) \(bodyText(response))")
        }
        do {
            return try TLV8(decoding: response.body)
        } catch {
            throw WireError(description: "POST \(path) answered a body that is not TLV8: \(error)")
        }
    }

    /// Writes bytes as they are, sealed or not.
    func write(_ bytes: [UInt8]) throws(WireError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw WireError(description: "the accessory closed the connection") }
            offset += written
        }
    }

    /// Seals plaintext with the session cipher (no cipher: the plaintext).
    func sealed(_ plaintext: [UInt8]) -> [UInt8] {
        guard var current = cipher else { return plaintext }
        let frames = current.seal(plaintext)
        cipher = current
        return frames
    }

    /// The next EVENT message, waiting up to `seconds` for one; `nil` when none came.
    func nextEvent(within seconds: Double) throws(WireError) -> HTTPResponse? {
        if !events.isEmpty { return events.removeFirst() }
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let message = try nextMessage() {
                if message.kind == .event { return message }
                continue
            }
            guard try receive(until: deadline) else { return nil }
        }
    }

    /// Whether the accessory closes the connection within `seconds` (bytes received meanwhile are dropped).
    func closesWithin(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                guard try receive(until: deadline) else { return false }
            } catch {
                return true
            }
        }
    }

    private func nextMessage() throws(WireError) -> HTTPResponse? {
        do {
            return try parser.nextResponse()
        } catch {
            throw WireError(description: "the accessory sent bytes that are not HTTP: \(error)")
        }
    }

    /// Reads what has arrived by `deadline` into the parser; `false` when nothing came in time.
    private func receive(until deadline: Date) throws(WireError) -> Bool {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 600_000)))
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw WireError(description: "the accessory closed the connection") }
        let bytes = Array(buffer[0..<count])
        if var current = cipher {
            do {
                parser.append(try current.open(bytes))
                cipher = current
            } catch {
                throw WireError(description: "a frame from the accessory did not decrypt: \(error)")
            }
        } else {
            parser.append(bytes)
        }
        return true
    }
}

/// The body of a response as text for a report, cut to 200 characters.
func bodyText(_ response: HTTPResponse) -> String {
    let text = String(decoding: response.body, as: UTF8.self)
    return text.count > 200 ? String(text.prefix(199)) + "…" : text
}
