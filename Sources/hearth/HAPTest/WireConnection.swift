import Foundation
import HAP
import HAPTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Why a tester connection failed, in words that say what was seen on the wire.
struct WireError: Error, CustomStringConvertible {
    /// What happened, as a sentence fragment.
    var description: String
    /// Whether the connection itself failed (refused, closed, or no answer in time), so a retry on a new one may
    /// work; `false` for an answer that came but could not be read or said no.
    var isConnectionLost = false
}

/// The EVENT messages every tester connection got for characteristics it never subscribed to
/// (hap-protocol.md §7.8: events go only to the connection that subscribed).
final class UnsolicitedEvents {
    /// One line per event item, `1.10 = 75`, in arrival order.
    private(set) var seen: [String] = []

    /// Notes an event item that arrived on a connection not subscribed to it.
    func note(_ line: String) { seen.append(line) }
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
    /// Answers received since pair-verify ended (for a report of where a session was closed).
    private(set) var answeredOnSession = 0
    /// Characteristics this connection ever asked events for (``noteSubscribed(_:)``).
    private var subscriptions: Set<CharacteristicID> = []
    /// Where events for characteristics not subscribed to are noted; `nil` ignores them.
    let unsolicited: UnsolicitedEvents?

    /// Connects to `host`:`port` (an IPv4 address).
    init(host: String, port: Int, timeout: Double = 10, unsolicited: UnsolicitedEvents? = nil) throws(WireError) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.unsolicited = unsolicited
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
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw WireError(description: "no TCP connection to \(host):\(port) (\(reason))", isConnectionLost: true)
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
        let what = "\(request.method) \(request.target)"
        while true {
            if let message = try nextMessage(answering: what) {
                if message.kind == .event {
                    events.append(message)
                    continue
                }
                if isEncrypted { answeredOnSession += 1 }
                return message
            }
            guard try receive(until: deadline, answering: what) else {
                let partial = parser.bufferedByteCount
                throw WireError(
                    description: "no answer to \(what) within \(Self.seconds(timeout)) s"
                        + (partial > 0
                            ? " (\(partial) bytes of an answer came, but not all its Content-Length announced)" : ""),
                    isConnectionLost: partial == 0
                )
            }
        }
    }

    /// Notes that this connection asked for events on `id`; events for it are solicited from now on.
    func noteSubscribed(_ id: CharacteristicID) { subscriptions.insert(id) }

    /// A number of seconds for a report: `10` or `0.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
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
            guard written > 0 else { throw closed(while: nil) }
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
            if let message = try nextMessage(answering: nil) {
                if message.kind == .event { return message }
                continue
            }
            guard try receive(until: deadline, answering: nil) else { return nil }
        }
    }

    /// Whether the accessory closes the connection within `seconds` (bytes received meanwhile are dropped).
    func closesWithin(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                guard try receive(until: deadline, answering: nil) else { return false }
            } catch {
                return true
            }
        }
    }

    /// The next message parsed; an EVENT is checked against the subscriptions first.
    private func nextMessage(answering what: String?) throws(WireError) -> HTTPResponse? {
        let message: HTTPResponse?
        do {
            message = try parser.nextResponse()
        } catch {
            throw WireError(
                description: "the answer\(what.map { " to " + $0 } ?? "") could not be read: the accessory sent bytes "
                    + "that are not HTTP (\(error)); a wrong Content-Length on an earlier answer leaves such bytes"
            )
        }
        if let message, message.kind == .event { noteUnsolicited(message) }
        return message
    }

    /// Notes each item of an EVENT for a characteristic this connection never subscribed to.
    private func noteUnsolicited(_ event: HTTPResponse) {
        guard let unsolicited, let items = try? HAPJSON.decodeReadResponse(event.body).characteristics else { return }
        for item in items where !subscriptions.contains(item.id) {
            unsolicited.note("\(item.id) = \(item.value?.description ?? "null")")
        }
    }

    /// The error for a connection the accessory closed, saying where.
    private func closed(while what: String?) -> WireError {
        var text = "the accessory closed the connection"
        if let what { text += " while \(what) waited for its answer" }
        if isEncrypted {
            text += " (after \(answeredOnSession) answered request\(answeredOnSession == 1 ? "" : "s") on this session)"
        }
        return WireError(description: text, isConnectionLost: true)
    }

    /// Reads what has arrived by `deadline` into the parser; `false` when nothing came in time.
    private func receive(until deadline: Date, answering what: String?) throws(WireError) -> Bool {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 600_000)))
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw closed(while: what) }
        let bytes = Array(buffer[0..<count])
        if var current = cipher {
            do {
                parser.append(try current.open(bytes))
                cipher = current
            } catch {
                throw WireError(
                    description: "the answer\(what.map { " to " + $0 } ?? "") could not be read: a frame from the "
                        + "accessory did not decrypt (\(error))"
                )
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
