import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// One relay connection as Hummingbird's server sees it: the channel handlers do all the work on the channel's
/// event loop, so no task waits per connection.
struct RelayChildChannel: ServerChildChannel {
    /// The accepted channel.
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    let relay: RelayServer

    /// Sets up HTTP/1.1 with the WebSocket upgrade on `channel`.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try relay.configurePipeline(channel)
            return Value(channel: channel)
        }
    }

    /// Nothing to wait for: the handlers serve the channel until it closes.
    func handle(value: Value, logger: Logger) async {}
}

extension RelayServer {
    /// The handlers of a new connection: HTTP/1.1 (`/healthz`), upgraded to a WebSocket on `/v1/hub` and
    /// `/v1/client`.
    func configurePipeline(_ channel: any Channel) throws {
        let relay = self
        let maximumMessage = configuration.maximumPayload + RelayFrame.dataHeaderLength
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maximumMessage,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(
                    RelaySocketHandler.role(path: URI(head.uri).path).map { _ in [:] }
                )
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let uri = URI(head.uri)
                    guard let role = RelaySocketHandler.role(path: uri.path) else { return }
                    let route = uri.queryParameters["route"].flatMap { RouteID(String($0)) }
                    let pipeline = channel.pipeline.syncOperations
                    if role == .hub {
                        try pipeline.addHandler(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0,
                                maxAccumulatedFrameCount: 1024,
                                maxAccumulatedFrameSize: maximumMessage
                            )
                        )
                    }
                    try pipeline.addHandler(RelaySocketHandler(role: role, route: route, relay: relay))
                }
            }
        )
        let idle = IdleStateHandler(readTimeout: .seconds(30))
        let http = RelayHTTPHandler()
        let handlers = NIOLoopBound((idle, http), eventLoop: channel.eventLoop)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    let (idle, http) = handlers.value
                    context.pipeline.syncOperations.removeHandler(idle, promise: nil)
                    context.pipeline.syncOperations.removeHandler(http, promise: nil)
                }
            )
        )
        try pipeline.addHandler(idle)
        try pipeline.addHandler(http)
    }
}

/// The plain HTTP requests: `GET /healthz` answers `ok`, anything else 404.
final class RelayHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let healthy = head.method == .GET && URI(head.uri).path == "/healthz"
            let body = ByteBuffer(string: healthy ? "ok\n" : "")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(body.readableBytes)")
            if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
            let response = HTTPResponseHead(
                version: head.version,
                status: healthy ? .ok : .notFound,
                headers: headers
            )
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !head.isKeepAlive {
                let loopBound = context.loopBound
                written.whenComplete { _ in loopBound.value.close(promise: nil) }
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let inputClosed: Bool = if case ChannelEvent.inputClosed? = event as? ChannelEvent { true } else { false }
        if inputClosed || event is IdleStateHandler.IdleStateEvent
            || (event is ChannelShouldQuiesceEvent && head == nil)
        {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// A relay WebSocket reachable from any thread: its event loop and its handler, which runs only on that loop.
final class SocketPeer: Sendable {
    private let eventLoop: any EventLoop
    private let handler: NIOLoopBound<RelaySocketHandler>

    init(_ handler: RelaySocketHandler, eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
    }

    /// Runs `body` with the handler on its event loop: now when already there, else in one hop.
    private func onLoop(_ body: @escaping @Sendable (RelaySocketHandler) -> Void) {
        if eventLoop.inEventLoop {
            body(handler.value)
        } else {
            let handler = handler
            eventLoop.execute { body(handler.value) }
        }
    }

    /// Sends one binary message (a hub link's frame).
    func send(_ message: ByteBuffer) { onLoop { $0.sendBinary(message) } }
    /// Forwards the home's bytes to a client stream.
    func deliver(_ payload: ByteBuffer) { onLoop { $0.deliverToClient(payload) } }
    /// Ends the connection with `code` and `reason`.
    func close(_ code: WebSocketErrorCode, reason: String) { onLoop { $0.end(code, reason: reason) } }
    /// Reads the client again after the hub's link drained.
    func resumeReading() { onLoop { $0.resumeReading() } }
}

/// One hub link or client stream, served on its channel's event loop: the proof, the forwarding, the limits,
/// pings and the close handshake.
final class RelaySocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Which end of the relay the socket is.
    enum Role { case hub, client }

    /// The role a WebSocket path serves, `nil` for any other path.
    static func role(path: String) -> Role? {
        switch path {
        case "/v1/hub": .hub
        case "/v1/client": .client
        default: nil
        }
    }

    private enum Phase { case open, closing, closed }

    private let role: Role
    private let route: RouteID?
    private let relay: RelayServer
    private let configuration: RelayServer.Configuration
    private var context: ChannelHandlerContext?
    private var peer: SocketPeer?
    private var phase = Phase.open
    private var bucket: TokenBucket
    private var pingData: ByteBuffer?
    private var pingTimer: Scheduled<Void>?
    private var closeTimer: Scheduled<Void>?
    /// The proof timeout (hub) or the idle timeout (client).
    private var deadlineTimer: Scheduled<Void>?
    /// The hub's home once proven, or the home a client stream belongs to.
    private var home: Home?
    private var challenge: [UInt8] = []
    private var proven = false
    private var stream: UInt32?
    private var streamEnded = false
    private var lastActivity = NIODeadline.now()
    private var queuedWhileUnwritable = 0
    private var pendingRead = false

    init(role: Role, route: RouteID?, relay: RelayServer) {
        self.role = role
        self.route = route
        self.relay = relay
        configuration = relay.configuration
        bucket = TokenBucket(rate: configuration.clientFramesPerSecond, burst: configuration.clientFrameBurst)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peer = SocketPeer(self, eventLoop: context.eventLoop)
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ended(context)
        self.context = nil
    }

    private func start(_ context: ChannelHandlerContext) {
        schedulePing(context)
        switch role {
        case .hub: startHub(context)
        case .client: startClient(context)
        }
    }

    // MARK: Hubs

    private func startHub(_ context: ChannelHandlerContext) {
        guard route != nil else {
            close(.policyViolation, reason: "the routing id must be 32 lowercase hex digits")
            return
        }
        var generator = SystemRandomNumberGenerator()
        challenge = (0..<HubProof.challengeLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        sendBinary(RelayFrame.challenge(challenge).encoded(allocator: context.channel.allocator))
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(configuration.proofTimeout)) {
            if !self.proven { self.close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason) }
        }
    }

    /// The hub's answer to the challenge, then its frames to its streams.
    private func hubMessage(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        guard let route, let peer else { return }
        guard proven else {
            guard frame.opcode == .binary,
                case .proof(let publicKey, let signature)? = RelayFrame(decoding: frame.unmaskedData),
                HubProof.verify(publicKey: publicKey, signature: signature, challenge: challenge, route: route)
            else {
                relay.logger.info("hub proof refused", metadata: ["route": "\(route)"])
                close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason)
                return
            }
            proven = true
            deadlineTimer?.cancel()
            deadlineTimer = nil
            bucket = TokenBucket(rate: configuration.hubFramesPerSecond, burst: configuration.hubFrameBurst)
            // The home is listed before the hub hears it is accepted, so a client the hub sends at once finds it.
            let home = Home(route: route, hub: peer)
            self.home = home
            if let older = relay.homes.attach(home) {
                older.shutDown()
                older.hub.close(RelayClose.replaced.code, reason: RelayClose.replaced.reason)
            }
            sendBinary(RelayFrame.accepted.encoded(allocator: context.channel.allocator))
            relay.logger.info("home connected", metadata: ["route": "\(route)"])
            return
        }
        guard let home else { return }
        guard bucket.take() else {
            close(RelayClose.tooManyFrames.code, reason: RelayClose.tooManyFrames.reason)
            return
        }
        guard frame.opcode == .binary, let relayFrame = RelayFrame(decoding: frame.unmaskedData) else { return }
        switch relayFrame {
        case .data(let stream, let payload):
            configuration.observer?(
                ForwardedPayload(route: route, stream: stream, direction: .hubToClient, bytes: payload)
            )
            if !home.deliver(payload, to: stream) {
                sendBinary(RelayFrame.close(stream: stream).encoded(allocator: context.channel.allocator))
            }
        case .close(let stream):
            home.endStream(stream, code: .normalClosure, reason: "closed by the home")
        default:
            break
        }
    }

    /// Sends one binary message while the socket is open.
    func sendBinary(_ message: ByteBuffer) {
        guard phase == .open, let context else { return }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: message)), promise: nil)
    }

    // MARK: Clients

    private func startClient(_ context: ChannelHandlerContext) {
        guard let route, let home = relay.homes.home(route), let peer else {
            close(RelayClose.homeOffline.code, reason: RelayClose.homeOffline.reason)
            return
        }
        do {
            stream = try home.openStream(peer, limit: configuration.maximumStreamsPerHome)
        } catch {
            let refusal = error == .full ? RelayClose.tooManyStreams : RelayClose.homeOffline
            close(refusal.code, reason: refusal.reason)
            return
        }
        self.home = home
        if let stream { home.hub.send(RelayFrame.open(stream: stream).encoded(allocator: context.channel.allocator)) }
        lastActivity = .now()
        scheduleIdleCheck(context, at: lastActivity + TimeAmount(configuration.idleTimeout))
    }

    private func scheduleIdleCheck(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            guard self.phase == .open, let context = self.context else { return }
            let due = self.lastActivity + TimeAmount(self.configuration.idleTimeout)
            if NIODeadline.now() >= due {
                self.end(RelayClose.idle.code, reason: RelayClose.idle.reason)
            } else {
                self.scheduleIdleCheck(context, at: due)
            }
        }
    }

    /// A frame from the client: forwarded to the home within the limits.
    private func clientFrame(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        guard bucket.take() else {
            end(RelayClose.tooManyFrames.code, reason: RelayClose.tooManyFrames.reason)
            return
        }
        // Frames, not messages: a stream is bytes, so each frame's payload is forwarded as it comes.
        let payload = frame.unmaskedData
        guard payload.readableBytes <= configuration.maximumPayload else {
            end(RelayClose.frameTooLarge.code, reason: RelayClose.frameTooLarge.reason)
            return
        }
        guard payload.readableBytes > 0, let home, let stream, let route else { return }
        lastActivity = .now()
        configuration.observer?(ForwardedPayload(route: route, stream: stream, direction: .clientToHub, bytes: payload))
        home.hub.send(RelayFrame.data(stream: stream, payload: payload).encoded(allocator: context.channel.allocator))
    }

    /// The home's bytes to the client; a client that lets its queue fill is closed as too slow.
    func deliverToClient(_ payload: ByteBuffer) {
        guard phase == .open, let context else { return }
        lastActivity = .now()
        if !context.channel.isWritable {
            queuedWhileUnwritable += 1
            if queuedWhileUnwritable > configuration.clientQueueLength {
                end(RelayClose.tooSlow.code, reason: RelayClose.tooSlow.reason)
                return
            }
        }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: payload)), promise: nil)
    }

    /// Tells the home the stream ended, unless the home ended it (then it is no longer listed).
    private func endStream() {
        guard role == .client, !streamEnded, let home, let stream else { return }
        streamEnded = true
        if home.forgetStream(stream) { home.hub.send(RelayFrame.close(stream: stream).encoded()) }
    }

    func read(context: ChannelHandlerContext) {
        // Backpressure: while the hub's link cannot take more, the client is not read.
        if role == .client, let home, !home.isHubWritable {
            pendingRead = true
        } else {
            context.read()
        }
    }

    /// Reads again if a read waited for the hub's link.
    func resumeReading() {
        guard pendingRead, let context else { return }
        pendingRead = false
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        switch role {
        case .hub: home?.hubWritabilityChanged(writable)
        case .client: if writable { queuedWhileUnwritable = 0 }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: WebSocket

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            guard frame.fin else {
                close(.protocolError, reason: nil)
                context.close(promise: nil)
                return
            }
            guard phase == .open else { return }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                promise: nil
            )
        case .pong:
            if frame.fin, let pingData, frame.unmaskedData == pingData { self.pingData = nil }
        case .connectionClose:
            receivedClose(frame, context: context)
        case .binary, .text, .continuation:
            guard phase == .open else { return }
            switch role {
            case .hub: hubMessage(frame, context: context)
            case .client: clientFrame(frame, context: context)
            }
        default:
            break
        }
    }

    /// The peer's close: answered (the server then closes the connection), or the end of our own close handshake.
    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        switch phase {
        case .open:
            phase = .closed
            endStream()
            var data = frame.unmaskedData
            let size = data.readableBytes
            let code: WebSocketErrorCode
            switch data.readWebSocketErrorCode() {
            case .unknown(let number)? where number < 3000 || number > 4999: code = .protocolError
            case nil where size > 0: code = .protocolError
            default: code = .normalClosure
            }
            var answer = context.channel.allocator.buffer(capacity: 2)
            answer.write(webSocketErrorCode: code)
            let loopBound = context.loopBound
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer)))
                .whenComplete { _ in loopBound.value.close(promise: nil) }
        case .closing:
            phase = .closed
            context.close(promise: nil)
        case .closed:
            break
        }
    }

    /// Ends the connection: a client stream first tells its home, then the close handshake starts.
    func end(_ code: WebSocketErrorCode, reason: String?) {
        endStream()
        close(code, reason: reason)
    }

    /// Starts the close handshake; the connection closes when the peer answers or after the close timeout.
    private func close(_ code: WebSocketErrorCode, reason: String?) {
        guard phase == .open, let context else { return }
        phase = .closing
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)),
            promise: nil
        )
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(5)) {
            self.context?.close(promise: nil)
        }
    }

    /// Pings every interval; a peer that did not answer the last ping within it is dropped.
    private func schedulePing(_ context: ChannelHandlerContext) {
        pingTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(configuration.pingInterval)) {
            guard self.phase == .open, let context = self.context else { return }
            if self.pingData != nil {
                self.end(.goingAway, reason: "Ping timeout")
                context.close(promise: nil)
                return
            }
            var generator = SystemRandomNumberGenerator()
            let data = ByteBuffer(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            self.pingData = data
            context.writeAndFlush(
                self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: data)),
                promise: nil
            )
            self.schedulePing(context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server is shutting down gracefully.
        if event is ChannelShouldQuiesceEvent { end(.normalClosure, reason: nil) }
        // The peer finished sending (the server allows half-closed connections): nothing more can come.
        if case ChannelEvent.inputClosed? = event as? ChannelEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A malformed or oversized frame: the protocol error handler sends the close frame and closes.
        if error is NIOWebSocketError {
            phase = .closed
            return
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended(context)
        context.fireChannelInactive()
    }

    /// The connection is gone: timers stop, a stream leaves its home, a hub's home goes offline.
    private func ended(_ context: ChannelHandlerContext) {
        guard peer != nil else { return }
        phase = .closed
        peer = nil
        for timer in [pingTimer, closeTimer, deadlineTimer] { timer?.cancel() }
        switch role {
        case .client:
            endStream()
        case .hub:
            guard let home, let route else { return }
            relay.homes.detach(home)
            home.shutDown()
            relay.logger.info("home disconnected", metadata: ["route": "\(route)"])
        }
    }
}
