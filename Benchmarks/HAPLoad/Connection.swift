import Foundation
import HAP

#if canImport(Glibc)
    import Glibc
#endif

/// Why a load-client call failed.
enum LoadError: Error, CustomStringConvertible {
    case system(String, Int32)
    case closed
    case unexpected(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .closed: "the accessory closed the connection"
        case .unexpected(let text): text
        }
    }
}

/// One HAP connection on a blocking TCP socket: plain HTTP until pair-verify, then sealed frames.
///
/// Used from one thread at a time. Blocking sockets keep the client's own cost per request small and easy to
/// reason about: one `send` and usually one `recv` per request.
final class HAPConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var cipher: SessionCipher?
    private var parser = HTTPResponseParser()
    private var ready: [HTTPResponse] = []
    private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let host: String
    private var isOpen = true

    /// Connects to `host:port` (IPv4), with Nagle off and a receive timeout.
    init(host: String, port: Int, timeoutSeconds: Int = 10) throws {
        self.host = host
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw LoadError.system("socket", errno) }
        descriptor = socketDescriptor
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            Glibc.close(descriptor)
            throw LoadError.unexpected("not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw LoadError.system("connect", code)
        }
    }

    deinit { close() }

    /// Closes the socket; later calls do nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(descriptor)
    }

    /// Sends bytes, sealed once the session is verified.
    func sendBytes(_ plaintext: [UInt8]) throws {
        var bytes = plaintext
        if cipher != nil, let sealed = cipher?.seal(plaintext) { bytes = sealed }
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw LoadError.system("send", errno) }
            sent += count
        }
    }

    /// Sends one request.
    func send(_ request: HTTPRequest) throws {
        try sendBytes(request.encoded())
    }

    /// The next response; events received meanwhile are kept for ``event()``.
    func response() throws -> HTTPResponse {
        while true {
            if let index = ready.firstIndex(where: { $0.kind != .event }) { return ready.remove(at: index) }
            try receiveMore()
        }
    }

    /// The next event.
    func event() throws -> HTTPResponse {
        while true {
            if let index = ready.firstIndex(where: { $0.kind == .event }) { return ready.remove(at: index) }
            try receiveMore()
        }
    }

    /// Reads what the socket has (waiting for at least one byte) and parses every message it completes.
    private func receiveMore() throws {
        let count = receiveBuffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { throw LoadError.closed }
        guard count > 0 else { throw LoadError.system("recv", errno) }
        var plaintext = Array(receiveBuffer[0..<count])
        if cipher != nil, let opened = try cipher?.open(plaintext) { plaintext = opened }
        parser.append(plaintext)
        while let message = try parser.nextResponse() { ready.append(message) }
    }

    /// Sends a request and waits for its response.
    func request(
        _ method: HTTPMethod,
        _ target: String,
        body: [UInt8] = [],
        contentType: HTTPContentType? = nil
    ) throws -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": host]
        if let contentType { headers.add(name: "Content-Type", value: contentType.rawValue) }
        try send(HTTPRequest(method: method, target: target, headers: headers, body: body))
        return try response()
    }

    /// A pairing request with a TLV8 body; the reply's TLV8.
    func tlv(_ path: String, _ body: TLV8) throws -> TLV8 {
        let reply = try request(.post, path, body: body.encoded(), contentType: .pairingTLV8)
        guard reply.status.code == 200 else { throw LoadError.unexpected("\(path): HTTP \(reply.status)") }
        return try TLV8(decoding: reply.body)
    }

    /// Pair-setup M1–M6 with the setup code.
    func pairSetup(setupCode: String, identity: ControllerIdentity) throws -> AccessoryPairing {
        var controller = PairSetupController(setupCode: setupCode, identity: identity)
        var next = controller.start()
        while true {
            switch try controller.receive(try tlv("/pair-setup", next)) {
            case .send(let request): next = request
            case .paired(let pairing): return pairing
            case .transient: throw LoadError.unexpected("the accessory ended pair-setup as transient")
            }
        }
    }

    /// Pair-verify M1–M4; every later byte is sealed.
    func pairVerify(identity: ControllerIdentity, accessory: AccessoryPairing) throws {
        var controller = PairVerifyController(identity: identity, accessory: accessory)
        var next = controller.start()
        while true {
            switch try controller.receive(try tlv("/pair-verify", next)) {
            case .send(let request): next = request
            case .established(let keys):
                cipher = SessionCipher(keys: keys, role: .controller)
                return
            }
        }
    }
}
