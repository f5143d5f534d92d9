import Foundation
import HAP
import HAPTypes
import Logging
import NIOCore
import NIOPosix

/// How long a connection waits for the TCP handshake and for each answer.
public struct ConnectionTimeouts: Sendable, Equatable {
    /// The longest wait for the TCP connection (aiohomekit uses 10 s, hap-protocol.md §7.9).
    public var connect: Duration
    /// The longest wait for one answer; then the connection is reset (iOS gives up after about 10 s).
    public var request: Duration

    /// Makes timeouts; both default to 10 s.
    public init(connect: Duration = .seconds(10), request: Duration = .seconds(10)) {
        self.connect = connect
        self.request = request
    }
}

/// One TCP connection to an accessory at a time: connect, pair-verify, session cipher, HTTP/1.1.
///
/// Requests wait in a queue and go out one at a time (hap-protocol.md §7.9: peers do not pipeline). A request that
/// finds no connection opens one first. On a timeout, a closed socket or bad bytes, the connection is dropped and the
/// next request opens a new one. EVENT messages between answers go to the event handler.
///
/// The actor runs on one event loop, the one its channels use: received bytes are decrypted and parsed where they
/// arrive, answers and timeouts need no other thread, and a ``PairedAccessory`` on the same loop calls it without a
/// hop.
actor AccessoryConnection {
    /// Whether the connection is verified before use.
    enum Security: Sendable {
        /// Plain HTTP, for pair-setup and identify of an unpaired accessory.
        case plain
        /// Pair-verify as this controller with this accessory, then encrypt.
        case verified(ControllerIdentity, AccessoryPairing)
    }

    /// Waits for one answer.
    ///
    /// Unsafe continuations, each resumed exactly once: by the answer, a timeout or the channel's end, all of which
    /// clear ``pending`` on this actor before resuming; by ``begin`` when there is no channel; or, for a request that
    /// could not be written at once, by the task that sends it in its turn.
    typealias Waiter = UnsafeContinuation<Result<HTTPResponse, HAPControllerError>, Never>

    let host: String
    let port: Int
    let security: Security
    let timeouts: ConnectionTimeouts
    /// The `Host` header: address and port.
    nonisolated let hostHeader: String
    /// The `Host` and `Content-Type: application/hap+json` lines of every JSON request, written once.
    private let jsonHeaderLines: [UInt8]
    /// The loop this actor and its channels run on.
    nonisolated let eventLoop: any EventLoop

    /// Receives sessions coming and going and the events between answers, on ``eventLoop``.
    private var eventHandler: (@Sendable (ConnectionEvent) -> Void)?
    private let logger: Logger
    private var channel: (any Channel)?
    private var generation = 0
    private var isEstablished = false
    private var cipher: SessionCipher?
    /// Answers and events are read for their status and body; header fields are checked but not kept.
    private var parser = HTTPResponseParser(keepsHeaders: false)
    /// The plaintext of the request going out and of the bytes coming in; kept so their storage is reused.
    private var outgoing: [UInt8] = []
    private var incoming: [UInt8] = []
    /// The buffer the last request was sealed into, reused when the channel has written it.
    private var sendBuffer: ByteBuffer?
    private var pending: Waiter?
    /// Whether answering ``pending`` also gives back the turn (a request written by ``startJSON``).
    private var pendingReleasesTurn = false
    /// When the request in flight times out.
    private var deadline: NIODeadline?
    /// One timer at a time checks ``deadline``; requests that answer in time do not touch it.
    private var timer: Scheduled<Void>?
    private var isBusy = false
    /// Requests handed to a task because they found the turn taken or no session, not yet in ``queue``; while there
    /// are any, later requests take the same way, so requests go out in the order they came.
    private var handedToTasks = 0
    /// How many requests were written at once by ``startJSONOnLoop``, without a task or a wait (for tests).
    private(set) var requestsWrittenAtOnce = 0
    private var queue: [UnsafeContinuation<Void, Never>] = []
    private var isShutDown = false

    /// Runs the actor on the event loop its channels use; ``receiveOnLoop(_:generation:)`` relies on it.
    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    init(
        host: String,
        port: Int,
        security: Security,
        timeouts: ConnectionTimeouts,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.timeouts = timeouts
        hostHeader = "\(host):\(port)"
        jsonHeaderLines =
            HTTPHeaders([("Host", hostHeader), ("Content-Type", HTTPContentType.hapJSON.rawValue)]).encodedLines
        self.eventLoop = eventLoop
        self.logger = logger
    }

    init(
        host: String,
        port: Int,
        security: Security,
        timeouts: ConnectionTimeouts,
        group: any EventLoopGroup,
        logger: Logger
    ) {
        self.init(
            host: host,
            port: port,
            security: security,
            timeouts: timeouts,
            eventLoop: group.next(),
            logger: logger
        )
    }

    deinit {
        // Released without shutDown(): close the socket so nothing is left running.
        timer?.cancel()
        channel?.close(promise: nil)
    }

    /// Sets who hears about sessions and events; called on ``eventLoop``.
    func setEventHandler(_ handler: @escaping @Sendable (ConnectionEvent) -> Void) {
        eventHandler = handler
    }

    /// Sends one request when its turn comes, connecting first if needed, and returns the answer.
    func send(_ request: HTTPRequest) async throws(HAPControllerError) -> HTTPResponse {
        await acquire()
        defer { release() }
        try await establish()
        return try await exchange(request)
    }

    /// Sends a hap+json request from ``eventLoop`` without waiting for this actor: it is written now if the session
    /// is open and nothing holds the turn, else a task waits for the turn and connects first; `waiter` is answered
    /// once either way.
    ///
    /// The target is `path`, then `?` and the query of `readQuery` when given; the headers are `Host` and
    /// `Content-Type`. The bytes are those of an ``HTTPRequest`` with the same parts. Being on the loop, the
    /// actor's executor, no other code of the actor can be running: this does what `assumeIsolated` does, without
    /// the allocation its closure costs (the cast drops only the `isolated` of a closure that captures nothing).
    nonisolated func startJSONOnLoop(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        waiter: Waiter
    ) {
        eventLoop.preconditionInEventLoop()
        let isolatedStart:
            (isolated AccessoryConnection, HTTPMethod, String, CharacteristicReadQuery?, [UInt8], Waiter) -> Void = {
                $0.startJSON($1, path: $2, readQuery: $3, body: $4, waiter: $5)
            }
        let start = unsafeBitCast(
            isolatedStart,
            to: ((AccessoryConnection, HTTPMethod, String, CharacteristicReadQuery?, [UInt8], Waiter) -> Void).self
        )
        start(self, method, path, readQuery, body, waiter)
    }

    /// ``startJSONOnLoop(_:path:readQuery:body:waiter:)`` on this actor; a request written now gives the turn back
    /// when it is answered.
    private func startJSON(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        waiter: Waiter
    ) {
        guard !isBusy, handedToTasks == 0, channel != nil, !isShutDown else {
            handedToTasks += 1
            Task {
                // The task runs on this actor: it takes its place in the queue in the same job.
                handedToTasks -= 1
                do throws(HAPControllerError) {
                    let answer = try await sendJSON(method, path: path, readQuery: readQuery, body: body)
                    waiter.resume(returning: .success(answer))
                } catch {
                    waiter.resume(returning: .failure(error))
                }
            }
            return
        }
        isBusy = true
        requestsWrittenAtOnce += 1
        encodeOutgoing(method, path: path, readQuery: readQuery, body: body)
        begin(plaintext: outgoing, waiter: waiter, releasesTurn: true)
    }

    /// Sends a hap+json request in its turn like ``send(_:)``, written straight as bytes (see
    /// ``startJSONOnLoop(_:path:readQuery:body:waiter:)``).
    func sendJSON(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery? = nil,
        body: [UInt8] = []
    ) async throws(HAPControllerError) -> HTTPResponse {
        // An idle queue and an open session take no call that could suspend.
        if isBusy { await acquire() } else { isBusy = true }
        defer { release() }
        if channel == nil || isShutDown { try await establish() }
        encodeOutgoing(method, path: path, readQuery: readQuery, body: body)
        return try await exchange(plaintext: outgoing)
    }

    /// Writes the request's bytes into the reused ``outgoing``.
    private func encodeOutgoing(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8]
    ) {
        outgoing.removeAll(keepingCapacity: true)
        Self.encodeJSON(
            method,
            path: path,
            readQuery: readQuery,
            body: body,
            headerLines: jsonHeaderLines,
            into: &outgoing
        )
    }

    /// Appends the bytes of a hap+json request to `bytes`: the target is `path`, then `?` and the query of
    /// `readQuery` when given; `headerLines` are the connection's `Host` and `Content-Type` lines.
    static func encodeJSON(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        headerLines: [UInt8],
        into bytes: inout [UInt8]
    ) {
        HTTPRequest.encode(
            method: method,
            target: { target in
                target.append(contentsOf: path.utf8)
                if let readQuery {
                    target.append(UInt8(ascii: "?"))
                    readQuery.appendQuery(to: &target)
                }
            },
            headerLines: headerLines,
            body: body,
            into: &bytes
        )
    }

    /// Opens (and verifies) a connection if there is none, in turn with the requests.
    func connect() async throws(HAPControllerError) {
        await acquire()
        defer { release() }
        try await establish()
    }

    /// Posts a pairing TLV8 body and returns the TLV8 answer.
    func postTLV8(_ path: String, _ body: TLV8) async throws(HAPControllerError) -> TLV8 {
        try Self.decodeTLV8(try await send(tlv8Request(path, body)))
    }

    /// Closes the connection for good; later requests fail with ``HAPControllerError/closed``.
    func shutDown() {
        isShutDown = true
        isEstablished = false
        dropChannel(failing: .closed)
        eventHandler = nil
    }

    // MARK: The queue

    private func acquire() async {
        guard isBusy else {
            isBusy = true
            return
        }
        await withUnsafeContinuation { queue.append($0) }
    }

    private func release() {
        if queue.isEmpty {
            isBusy = false
        } else {
            queue.removeFirst().resume()
        }
    }

    // MARK: Connecting

    private func establish() async throws(HAPControllerError) {
        if isShutDown { throw .closed }
        if channel != nil { return }
        do throws(HAPControllerError) {
            try await openChannel()
            if case .verified(let identity, let accessory) = security {
                do throws(HAPControllerError) {
                    try await verify(identity: identity, accessory: accessory)
                } catch {
                    dropChannel(failing: error)
                    throw error
                }
            }
        } catch {
            switch error {
            case .unreachable, .verificationFailed: eventHandler?(.unreachable)
            default: break
            }
            throw error
        }
        isEstablished = true
        eventHandler?(.connected)
    }

    private func openChannel() async throws(HAPControllerError) {
        generation += 1
        let current = generation
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Self.nanoseconds(timeouts.connect)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionInbound(connection: self, generation: current)
                    )
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            logger.debug("Connect failed", metadata: ["host": "\(host)", "port": "\(port)", "error": "\(error)"])
            throw .unreachable(host: host, port: port)
        }
        guard current == generation, !isShutDown else {
            channel.close(promise: nil)
            throw isShutDown ? .closed : .connectionClosed
        }
        self.channel = channel
        parser = HTTPResponseParser(keepsHeaders: false)
        cipher = nil
        if !channel.isActive {
            // It closed before this actor ran again; its channelInactive found no channel to drop.
            dropChannel(failing: .connectionClosed)
            throw .connectionClosed
        }
    }

    private func verify(identity: ControllerIdentity, accessory: AccessoryPairing) async throws(HAPControllerError) {
        var machine = PairVerifyController(identity: identity, accessory: accessory)
        var body = machine.start()
        while true {
            let reply = try Self.decodeTLV8(try await exchange(tlv8Request("/pair-verify", body)))
            let step: PairVerifyController.Step
            do {
                step = try machine.receive(reply)
            } catch {
                throw .verificationFailed(error)
            }
            switch step {
            case .send(let next):
                body = next
            case .established(let keys):
                // hap-protocol.md §4: M4 comes in clear; every later byte in both directions is sealed.
                cipher = SessionCipher(keys: keys, role: .controller)
                return
            }
        }
    }

    // MARK: One exchange

    private func exchange(_ request: HTTPRequest) async throws(HAPControllerError) -> HTTPResponse {
        try await exchange(plaintext: request.encoded())
    }

    private func exchange(plaintext: [UInt8]) async throws(HAPControllerError) -> HTTPResponse {
        let result = await withUnsafeContinuation { (waiter: Waiter) in
            begin(plaintext: plaintext, waiter: waiter, releasesTurn: false)
        }
        return try result.get()
    }

    /// Seals and writes one request and makes `waiter` the one answered next; with `releasesTurn`, the turn is
    /// given back when it is answered (by the answer, a timeout or the channel's end).
    private func begin(plaintext: [UInt8], waiter: Waiter, releasesTurn: Bool) {
        assert(pending == nil, "one request in flight")
        guard let channel else {
            waiter.resume(returning: .failure(.connectionClosed))
            if releasesTurn { release() }
            return
        }
        // The last request's buffer is unique again once the channel has written it; `clear()` then keeps its
        // storage (it takes new storage if the channel still holds the old).
        var buffer = sendBuffer ?? channel.allocator.buffer(capacity: 0)
        sendBuffer = nil
        buffer.clear()
        if cipher != nil {
            let count = SessionCipher.sealedByteCount(plaintextCount: plaintext.count)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { output in
                plaintext.withUnsafeBytes { input in cipher?.seal(input, into: output) ?? 0 }
            }
        } else {
            buffer.writeBytes(plaintext)
        }
        if buffer.capacity <= Self.keptBufferCapacity { sendBuffer = buffer }
        if outgoing.capacity > Self.keptBufferCapacity { outgoing = [] }
        deadline = .now() + .nanoseconds(Self.nanoseconds(timeouts.request))
        if timer == nil { armTimer() }
        pending = waiter
        pendingReleasesTurn = releasesTurn
        // hap-protocol.md §7.9: each message in one write.
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Answers the request in flight, and gives the turn back if its caller left that to the answer.
    private func answerPending(_ result: Result<HTTPResponse, HAPControllerError>) {
        guard let pending else { return }
        let releasesTurn = pendingReleasesTurn
        self.pending = nil
        pendingReleasesTurn = false
        deadline = nil
        pending.resume(returning: result)
        if releasesTurn { release() }
    }

    /// Schedules the check of the request in flight at its deadline.
    private func armTimer() {
        guard let deadline else { return }
        timer = eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            self?.assumeIsolated { $0.timerFired() }
        }
    }

    /// Times out the request in flight if its deadline has passed, else waits for the deadline of the one now in
    /// flight; with nothing in flight the timer stops.
    private func timerFired() {
        timer = nil
        guard pending != nil, let deadline else { return }
        if deadline <= .now() {
            logger.debug("Request timed out; resetting the connection", metadata: ["host": "\(host)"])
            dropChannel(failing: .timedOut)
        } else {
            armTimer()
        }
    }

    /// The most bytes a reused buffer or array keeps between messages; a larger one is let go after use.
    private static let keptBufferCapacity = 16 * 1024

    /// Hands received bytes to ``receive(_:generation:)`` from the channel's handler, which NIO runs on
    /// ``eventLoop``, this actor's executor.
    ///
    /// What `assumeIsolated` does, checked by the loop rather than the executor, without the allocation its
    /// closure costs for every read: the cast drops only the `isolated` of a closure that captures nothing.
    nonisolated func receiveOnLoop(_ buffer: ByteBuffer, generation: Int) {
        eventLoop.preconditionInEventLoop()
        let isolatedReceive: (isolated AccessoryConnection, ByteBuffer, Int) -> Void = {
            $0.receive($1, generation: $2)
        }
        let receive = unsafeBitCast(isolatedReceive, to: ((AccessoryConnection, ByteBuffer, Int) -> Void).self)
        receive(self, buffer, generation)
    }

    private func receive(_ buffer: ByteBuffer, generation: Int) {
        guard generation == self.generation, channel != nil else { return }
        if cipher != nil {
            do throws(SessionCipherError) {
                incoming.removeAll(keepingCapacity: true)
                try buffer.withUnsafeReadableBytes { bytes throws(SessionCipherError) in
                    try cipher?.open(bytes, appendingTo: &incoming)
                }
                parser.append(incoming)
                if incoming.capacity > Self.keptBufferCapacity { incoming = [] }
            } catch {
                dropChannel(failing: .sessionFailed(error))
                return
            }
        } else {
            parser.append(buffer.readableBytesView)
        }
        while true {
            let message: HTTPResponse?
            do throws(HTTPParseError) {
                message = try parser.nextResponse()
            } catch {
                dropChannel(failing: .malformedResponse(error))
                return
            }
            guard let message else { return }
            if message.kind == .event {
                // hap-protocol.md §7.8: events only come on verified sessions; a plain one has none to give.
                if cipher != nil { eventHandler?(.event(message)) }
                continue
            }
            guard pending != nil else {
                logger.debug("Dropping an answer nobody waits for", metadata: ["host": "\(host)"])
                continue
            }
            answerPending(.success(message))
        }
    }

    func channelClosed(generation: Int) {
        guard generation == self.generation, channel != nil else { return }
        dropChannel(failing: .connectionClosed)
    }

    /// Closes the channel, fails the request in flight, and reports the end of an established session.
    private func dropChannel(failing error: HAPControllerError) {
        timer?.cancel()
        timer = nil
        answerPending(.failure(error))
        deadline = nil
        channel?.close(promise: nil)
        channel = nil
        cipher = nil
        generation += 1
        if isEstablished {
            isEstablished = false
            eventHandler?(.disconnected)
        }
    }

    // MARK: Helpers

    /// A POST of a pairing TLV8 body, with the headers iOS sends in its order (hap-protocol.md §7.9).
    nonisolated func tlv8Request(_ path: String, _ body: TLV8) -> HTTPRequest {
        HTTPRequest(
            method: .post,
            target: path,
            headers: ["Host": hostHeader, "Content-Type": HTTPContentType.pairingTLV8.rawValue],
            body: body.encoded()
        )
    }

    static func decodeTLV8(_ response: HTTPResponse) throws(HAPControllerError) -> TLV8 {
        guard response.status.code == 200 else {
            throw .unexpectedHTTPStatus(code: response.status.code, status: hapStatus(in: response.body))
        }
        do {
            return try TLV8(decoding: response.body)
        } catch {
            throw .malformedBody
        }
    }

    /// The `"status"` of a JSON body such as `{"status":-70401}`, if there is one.
    static func hapStatus(in body: [UInt8]) -> HAPStatus? {
        struct StatusBody: Decodable {
            var status: Int
        }
        guard let decoded = try? JSONDecoder().decode(StatusBody.self, from: Data(body)) else { return nil }
        return HAPStatus(code: decoded.status)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
