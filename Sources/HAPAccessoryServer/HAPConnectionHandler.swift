import HAP
import HAPTypes
import Logging
import NIOCore

/// One TCP connection: HTTP in clear until pair-verify, then every byte sealed; requests answered one at a time.
///
/// Lives on its channel's event loop and never leaves it. Each request is handed to the ``AccessoryServer`` actor
/// in a task that runs on that same loop (the actor's executor); the answer is written whole, and only then is the
/// next request taken, so pipelined requests are answered in order (peers/README.md quirk 11) and an event never
/// splits a response. Until pair-verify succeeds, a connection that completes no request within the configured
/// time (longer while it runs a pair-setup) is closed, so a partial request or an idle stranger cannot hold a slot.
final class HAPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: AccessoryServer
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var handle: ConnectionHandle?
    private var parser = HTTPRequestParser()
    private var cipher: SessionCipher?
    private var session = ConnectionSession()
    private var queue: [HTTPRequest] = []
    private var isBusy = false
    private var isClosing = false
    /// A malformed request: answered, then the connection closes, once the requests before it are answered.
    private var parseError: HTTPParseError?
    private var coalescer: EventCoalescer
    private var eventTimer: Scheduled<Void>?
    private var requestTask: Task<Void, Never>?
    /// A request held back by a delay fault.
    private var delayTimer: Scheduled<Void>?
    /// Requests answered on the verified session, for the drop-after fault.
    private var verifiedAnswers = 0
    /// Closes the connection unless it completes a request (or pair-verify) in time; `nil` once verified.
    private var unverifiedTimer: Scheduled<Void>?
    /// The peer's address and port, for logs.
    private var peer = "unknown peer"
    /// Where each outgoing message is encoded before it is sealed; reused, unless a large one grew it.
    private var scratch: [UInt8] = []
    /// The largest scratch array kept after a message; a bigger one (an `/accessories` answer) is freed.
    private static let maximumScratchCapacity = 4096

    init(server: AccessoryServer, eventCoalescingWindow: Duration, logger: Logger) {
        self.server = server
        self.logger = logger
        coalescer = EventCoalescer(window: eventCoalescingWindow)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        peer = ConnectionHandle.peerDescription(context.channel.remoteAddress)
        let handle = ConnectionHandle(handler: self, eventLoop: context.eventLoop, peer: peer)
        self.handle = handle
        armUnverifiedTimer()
        // The server binds every connection to its own event loop, its executor: no hop to register.
        server.assumeIsolated { $0.register(handle) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosing = true
        requestTask?.cancel()
        eventTimer?.cancel()
        delayTimer?.cancel()
        unverifiedTimer?.cancel()
        unverifiedTimer = nil
        if let handle {
            server.assumeIsolated { $0.unregister(handle) }
        }
        handle = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        handle = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing, parseError == nil else { return }
        let buffer = unwrapInboundIn(data)
        let bytes = buffer.readableBytesView
        if cipher != nil {
            do {
                guard let plaintext = try cipher?.open(bytes) else { return }
                parser.append(plaintext)
            } catch {
                logger.debug(
                    "Closing a connection after a bad encrypted frame",
                    metadata: ["peer": "\(peer)", "error": "\(error)"]
                )
                closeConnection()
                return
            }
        } else {
            parser.append(bytes)
        }
        do {
            while let request = try parser.nextRequest() {
                queue.append(request)
            }
        } catch {
            logger.debug(
                "Closing a connection after a malformed request",
                metadata: ["peer": "\(peer)", "error": "\(error)"]
            )
            parseError = error
        }
        startNextRequest()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("Connection error", metadata: ["peer": "\(peer)", "error": "\(error)"])
        closeConnection()
    }

    /// Closes the connection; pending work is dropped.
    func closeConnection() {
        guard let context else { return }
        isClosing = true
        context.close(promise: nil)
    }

    /// Answers the queued requests in order: at once while the server can answer without suspending, else in a
    /// task on this loop (the server's executor) that calls ``finish(_:)``, which comes back here.
    private func startNextRequest() {
        while !isBusy, !isClosing {
            if queue.isEmpty, let parseError {
                isClosing = true
                write(HTTPResponse(status: parseError.responseStatus)) { $0.closeConnection() }
                return
            }
            guard !queue.isEmpty, let context else { return }
            if let faults = server.faults {
                // A simulator that stops answering takes the request and says nothing; the socket stays open.
                if faults.settings.stopsAnswering {
                    queue.removeAll()
                    return
                }
                let delay = faults.nextDelay()
                if delay > .zero {
                    let request = queue.removeFirst()
                    isBusy = true
                    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
                    delayTimer = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                        let handler = bound.value
                        handler.delayTimer = nil
                        guard !handler.isClosing else { return }
                        handler.isBusy = false
                        if handler.answer(request) { handler.startNextRequest() }
                    }
                    return
                }
            }
            let request = queue.removeFirst()
            guard answer(request) else { return }
        }
    }

    /// Starts answering one request; `true` when it was answered at once and the next may be taken.
    private func answer(_ request: HTTPRequest) -> Bool {
        guard !isClosing, let context, let handle else { return false }
        isBusy = true
        let server = self.server
        let session = self.session
        let connectionID = handle.id
        // The server's executor is this loop, so it can be entered here without a task.
        if let outcome = server.assumeIsolated({
            $0.handleImmediately(request, session: session, connection: connectionID)
        }) {
            return complete(outcome)
        }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        // The task starts on this loop, isolated to the server, and finishes here.
        requestTask = server.assumeIsolated { server in
            Task {
                let outcome = await server.handle(request, session: session, connection: connectionID)
                bound.value.finish(outcome)
            }
        }
        return false
    }

    private func finish(_ outcome: RouteOutcome) {
        guard complete(outcome) else { return }
        startNextRequest()
    }

    /// Writes the answer of the request in flight and the events that waited for it; `false` when no more
    /// requests are to be taken.
    private func complete(_ outcome: RouteOutcome) -> Bool {
        requestTask = nil
        isBusy = false
        guard !isClosing else { return false }
        let wasVerified = session.isVerified
        session = outcome.session
        let followups = outcome.followups
        var dropsByFault = false
        if wasVerified, let limit = server.faults?.settings.dropAfterRequests {
            verifiedAnswers += 1
            dropsByFault = verifiedAnswers >= limit
        }
        let closes = outcome.closesConnection || dropsByFault
        let server = self.server
        if !wasVerified, server.faults?.settings.dropsPairSetupM6 == true, Self.isPairSetupM6(outcome.response) {
            // The pairing is stored (and announced); the controller never hears of it.
            if !followups.isEmpty { Task { await server.carryOut(followups) } }
            closeConnection()
            return false
        }
        if followups.isEmpty, !closes {
            write(outcome.response)
        } else {
            write(outcome.response) { handler in
                if !followups.isEmpty { Task { await server.carryOut(followups) } }
                if closes { handler.closeConnection() }
            }
        }
        if closes { isClosing = true }
        if let keys = outcome.sessionKeys {
            // hap-protocol.md §4: M4 goes in clear; encryption starts with the next byte in each direction. A
            // controller must wait for M4, so bytes already buffered are a protocol violation.
            cipher = SessionCipher(keys: keys, role: .accessory)
            unverifiedTimer?.cancel()
            unverifiedTimer = nil
            if parser.bufferedByteCount > 0 || !queue.isEmpty {
                closeConnection()
                return false
            }
        }
        if cipher == nil { armUnverifiedTimer() }
        if coalescer.hasPending, !coalescer.isTimerArmed { sendEvents() }
        return !isClosing
    }

    /// Whether `response` is pair-setup M6 carrying the accessory's identity (State 6 without an Error): the only
    /// pairing TLV8 with State 6 on a connection in clear.
    private static func isPairSetupM6(_ response: HTTPResponse) -> Bool {
        guard response.headers["Content-Type"] == HTTPContentType.pairingTLV8.rawValue,
            let reply = try? TLV8(decoding: response.body)
        else { return false }
        return reply[.state] == [6] && reply[.error] == nil
    }

    /// (Re)starts the time an unverified connection has to complete its next request: the configured timeout, or
    /// the pair-setup timeout while a pair-setup is under way (a person may be typing the code between M2 and M3).
    private func armUnverifiedTimer() {
        unverifiedTimer?.cancel()
        unverifiedTimer = nil
        guard cipher == nil, !isClosing, let context else { return }
        var timeout = server.unverifiedTimeout
        if session.pairSetup != nil { timeout = max(timeout, AccessoryServer.pairSetupTimeout) }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        unverifiedTimer = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            bound.value.unverifiedTimerFired()
        }
    }

    private func unverifiedTimerFired() {
        unverifiedTimer = nil
        guard cipher == nil, !isClosing else { return }
        // A request being answered (SRP work) is not the peer's delay: give it the time again once answered.
        if isBusy { return }
        logger.debug(
            "Closing a connection that completed no request before pair-verify in time",
            metadata: ["peer": "\(peer)", "timeout": "\(server.unverifiedTimeout)"]
        )
        closeConnection()
    }

    /// Writes one whole message, sealed when the session is encrypted, and runs `completion` once it is out.
    private func write(
        _ response: HTTPResponse,
        then completion: (@Sendable (HAPConnectionHandler) -> Void)? = nil
    ) {
        guard let context else { return }
        // The message is written into a scratch array kept between messages, then sealed straight into the buffer
        // that is sent: one copy of the plaintext, one of the ciphertext.
        scratch.removeAll(keepingCapacity: true)
        let faults = server.faults?.settings
        if let error = faults?.contentLengthError, error != 0, !response.body.isEmpty {
            Self.encode(response, lengthOffBy: error, into: &scratch)
        } else {
            response.encode(into: &scratch)
        }
        var buffer: ByteBuffer
        if cipher != nil {
            let count = SessionCipher.sealedByteCount(plaintextCount: scratch.count)
            buffer = context.channel.allocator.buffer(capacity: count)
            scratch.withUnsafeBytes { plaintext in
                _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { output in
                    cipher?.seal(plaintext, into: output) ?? 0
                }
            }
        } else {
            buffer = context.channel.allocator.buffer(bytes: scratch)
        }
        if cipher != nil, faults?.sendsMalformedFrames == true, buffer.readableBytes > 0 {
            // Flip the last byte of the frame's authentication tag: the frame is well formed but cannot be opened.
            let last = buffer.writerIndex - 1
            if let byte = buffer.getInteger(at: last, as: UInt8.self) { buffer.setInteger(byte ^ 0xFF, at: last) }
        }
        if scratch.capacity > Self.maximumScratchCapacity { scratch = [] }
        guard let completion else {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            return
        }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in completion(bound.value) }
    }

    /// Encodes `response` with a Content-Length `offBy` bytes from the body's length (the wrong-length fault).
    static func encode(_ response: HTTPResponse, lengthOffBy offBy: Int, into bytes: inout [UInt8]) {
        var claimed = response
        if offBy > 0 {
            claimed.body += [UInt8](repeating: 0x20, count: offBy)
            claimed.encode(into: &bytes)
            bytes.removeLast(offBy)
        } else {
            let dropped = min(-offBy, claimed.body.count)
            claimed.body.removeLast(dropped)
            claimed.encode(into: &bytes)
            bytes.append(contentsOf: response.body.suffix(dropped))
        }
    }

    /// Takes changes for characteristics this connection subscribed to, and sends or schedules an event.
    func enqueueEvents(_ changes: [CharacteristicChange], immediately: Bool) {
        guard !isClosing, cipher != nil, let context else { return }
        switch coalescer.add(changes, immediately: immediately, now: Self.now()) {
        case .sendNow:
            eventTimer?.cancel()
            eventTimer = nil
            sendEvents()
        case .sendAfter(let delay):
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            eventTimer = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                bound.value.eventTimer = nil
                bound.value.sendEvents()
            }
        case .wait:
            break
        }
    }

    private func sendEvents() {
        guard !isClosing, cipher != nil else { return }
        let changes = coalescer.take(now: Self.now())
        guard !changes.isEmpty else { return }
        let items = changes.map {
            CharacteristicReadResponse.Item(
                accessoryID: $0.id.accessoryID,
                instanceID: $0.id.instanceID,
                value: $0.value,
                includesNullValue: $0.value == nil
            )
        }
        guard let body = try? CharacteristicReadResponse(characteristics: items).encodedJSON() else { return }
        write(.event(body: body))
    }

    private static func now() -> Duration {
        .nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds))
    }
}
