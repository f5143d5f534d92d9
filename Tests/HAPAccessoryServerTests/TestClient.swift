import Crypto
import Foundation
import HAP
import NIOCore
import NIOPosix

/// Why a test client call failed.
enum TestClientError: Error {
    case timedOut
    case closed
    case unexpected(String)
}

/// Forwards received bytes into an async stream; timer ticks share the stream so reads can time out.
private final class ByteForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    enum Item: Sendable {
        case bytes([UInt8])
        case tick(Int)
    }

    let continuation: AsyncStream<Item>.Continuation

    init(continuation: AsyncStream<Item>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(.bytes(Array(unwrapInboundIn(data).readableBytesView)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
    }
}

/// A HAP controller over a plain TCP connection, driven by the protocol core's controller-side state machines.
final class TestClient {
    private let channel: any Channel
    private var iterator: AsyncStream<ByteForwarder.Item>.AsyncIterator
    private let continuation: AsyncStream<ByteForwarder.Item>.Continuation
    private var parser = HTTPResponseParser()
    private var cipher: SessionCipher?
    private var ready: [HTTPResponse] = []
    private var tickCounter = 0
    private(set) var isClosed = false
    /// The client's own port, which the server sees as the peer's.
    var localPort: Int? { channel.localAddress?.port }
    /// Events received while waiting for responses, oldest first.
    var events: [HTTPResponse] = []

    private init(
        channel: any Channel,
        stream: AsyncStream<ByteForwarder.Item>,
        continuation: AsyncStream<ByteForwarder.Item>.Continuation
    ) {
        self.channel = channel
        self.iterator = stream.makeAsyncIterator()
        self.continuation = continuation
    }

    static func connect(port: Int) async throws -> TestClient {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteForwarder.Item.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteForwarder(continuation: continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return TestClient(channel: channel, stream: stream, continuation: continuation)
    }

    func close() async {
        try? await channel.close()
    }

    /// Sends raw bytes, sealed when the session is encrypted.
    func sendRaw(_ bytes: [UInt8], sealed: Bool = true) async throws {
        var bytes = bytes
        if sealed, cipher != nil, let sealedBytes = cipher?.seal(bytes) { bytes = sealedBytes }
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    func send(_ request: HTTPRequest) async throws {
        try await sendRaw(request.encoded())
    }

    /// The next message (response or event), `nil` once the server closed the connection.
    func nextMessage(timeout: Duration = .seconds(60)) async throws -> HTTPResponse? {
        if !ready.isEmpty { return ready.removeFirst() }
        tickCounter += 1
        let tick = tickCounter
        let continuation = self.continuation
        let scheduled = channel.eventLoop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout))) {
            continuation.yield(.tick(tick))
        }
        defer { scheduled.cancel() }
        while ready.isEmpty {
            guard let item = await iterator.next() else {
                isClosed = true
                return nil
            }
            switch item {
            case .tick(let number):
                if number == tick { throw TestClientError.timedOut }
            case .bytes(let bytes):
                var plaintext = bytes
                if cipher != nil {
                    guard let opened = try cipher?.open(bytes) else { continue }
                    plaintext = opened
                }
                parser.append(plaintext)
                while let message = try parser.nextResponse() { ready.append(message) }
            }
        }
        return ready.removeFirst()
    }

    /// The next response, keeping events aside.
    func response(timeout: Duration = .seconds(60)) async throws -> HTTPResponse {
        while true {
            guard let message = try await nextMessage(timeout: timeout) else { throw TestClientError.closed }
            if message.kind == .event {
                events.append(message)
            } else {
                return message
            }
        }
    }

    /// The next event, taking one already received first.
    func event(timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        if !events.isEmpty { return events.removeFirst() }
        while true {
            guard let message = try await nextMessage(timeout: timeout) else { throw TestClientError.closed }
            if message.kind == .event { return message }
            throw TestClientError.unexpected("a response while waiting for an event")
        }
    }

    /// Waits until the server closes the connection; true when it did in time.
    func waitForClose(timeout: Duration = .seconds(30)) async -> Bool {
        do {
            while try await nextMessage(timeout: timeout) != nil {}
            return true
        } catch TestClientError.timedOut {
            return false
        } catch {
            return true
        }
    }

    func request(
        _ method: HTTPMethod,
        _ target: String,
        body: [UInt8] = [],
        contentType: HTTPContentType? = nil
    )
        async throws -> HTTPResponse
    {
        var headers: HTTPHeaders = ["Host": "127.0.0.1"]
        if let contentType { headers.add(name: "Content-Type", value: contentType.rawValue) }
        try await send(HTTPRequest(method: method, target: target, headers: headers, body: body))
        return try await response()
    }

    func json(_ method: HTTPMethod, _ target: String, _ text: String) async throws -> HTTPResponse {
        try await request(method, target, body: Array(text.utf8), contentType: .hapJSON)
    }

    func tlv(_ path: String, _ body: TLV8) async throws -> TLV8 {
        let response = try await request(.post, path, body: body.encoded(), contentType: .pairingTLV8)
        guard response.status == .ok else { throw TestClientError.unexpected("HTTP \(response.status)") }
        return try TLV8(decoding: response.body)
    }

    /// Runs pair-setup M1–M6.
    func pairSetup(setupCode: String, identity: ControllerIdentity) async throws -> AccessoryPairing {
        var controller = PairSetupController(setupCode: setupCode, identity: identity)
        var request = controller.start()
        while true {
            let reply = try await tlv("/pair-setup", request)
            switch try controller.receive(reply) {
            case .send(let next): request = next
            case .paired(let pairing): return pairing
            case .transient: throw PairingFailure.procedureFinished
            }
        }
    }

    /// Runs pair-verify M1–M4 and encrypts the connection.
    func pairVerify(identity: ControllerIdentity, accessory: AccessoryPairing) async throws {
        var controller = PairVerifyController(identity: identity, accessory: accessory)
        var request = controller.start()
        while true {
            let reply = try await tlv("/pair-verify", request)
            switch try controller.receive(reply) {
            case .send(let next): request = next
            case .established(let keys):
                cipher = SessionCipher(keys: keys, role: .controller)
                return
            }
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension HTTPResponse {
    /// The body as a JSON object.
    func jsonObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestClientError.unexpected("not a JSON object")
        }
        return object
    }

    /// The `characteristics` array of a read, 207 or event body.
    func characteristicItems() throws -> [[String: Any]] {
        guard let items = try jsonObject()["characteristics"] as? [[String: Any]] else {
            throw TestClientError.unexpected("no characteristics")
        }
        return items
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
