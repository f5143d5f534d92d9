import NIOCore
import NIOWebSocket

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

/// One hub link or client stream, served on its channel's event loop.
///
/// It does the proof, the forwarding, the limits, pings and the close handshake, with one timer per connection at
/// a time (the next ping, the proof or idle deadline, or the end of the close handshake, whichever is first).
final class RelaySocketHandler: ChannelDuplexHandler, NIOScheduledCallbackHandler {
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
    private var context: ChannelHandlerContext?
    private var peer: SocketPeer?
    private var phase = Phase.open
    private var bucket: TokenBucket
    /// The scheduled timer and when it fires.
    private var timer: NIOScheduledCallback?
    private var timerDue = NIODeadline.distantFuture
    private var nextPing = NIODeadline.distantFuture
    /// The payload of the ping not answered yet.
    private var pingSent: UInt64?
    /// The proof deadline (hub, until proven) or the end of the close handshake (closing).
    private var deadline = NIODeadline.distantFuture
    /// The hub's home once proven, or the home a client stream belongs to.
    private var home: Home?
    private var challenge: [UInt8] = []
    private var proven = false
    private var stream: UInt32?
    private var streamEnded = false
    private var lastActivity = NIODeadline.now()
    private var queuedWhileUnwritable = 0
    private var pendingRead = false
    /// Whether a client's fragmented message has begun and not ended.
    private var clientMessageOpen = false
    /// A hub's message whose first frames came (whether it is binary, its bytes so far).
    private var partial: (binary: Bool, bytes: ByteBuffer)?

    init(role: Role, route: RouteID?, relay: RelayServer) {
        self.role = role
        self.route = route
        self.relay = relay
        let configuration = relay.configuration
        bucket =
            role == .hub
            ? TokenBucket(rate: configuration.hubFramesPerSecond, burst: configuration.hubFrameBurst)
            : TokenBucket(rate: configuration.clientFramesPerSecond, burst: configuration.clientFrameBurst)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peer = SocketPeer(self, eventLoop: context.eventLoop)
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ended()
        self.context = nil
    }

    private func start(_ context: ChannelHandlerContext) {
        nextPing = .now() + Self.firstPingDelay(relay.configuration.pingInterval)
        switch role {
        case .hub: startHub(context)
        case .client: startClient(context)
        }
        armTimer()
    }

    // MARK: Timer

    /// When a new connection's first ping is due: at a random point of the second half of `interval`.
    ///
    /// Later pings come every `interval`. Homes connect in bursts (a relay's restart brings them all back within
    /// seconds); pinging each a whole interval after it came would bring their pings back in the same bursts, every
    /// interval, and hold up the frames of active streams behind them.
    static func firstPingDelay(_ interval: Duration) -> TimeAmount {
        let nanoseconds = max(TimeAmount(interval).nanoseconds, 2)
        return .nanoseconds(Int64.random(in: nanoseconds / 2...nanoseconds))
    }

    /// When the timer must fire next.
    private var nextDeadline: NIODeadline {
        switch phase {
        case .closed: .distantFuture
        case .closing: deadline
        case .open:
            switch role {
            case .hub: proven ? nextPing : min(nextPing, deadline)
            case .client:
                stream == nil ? nextPing : min(nextPing, lastActivity + TimeAmount(relay.configuration.idleTimeout))
            }
        }
    }

    /// Schedules the timer for the next deadline unless it already fires before it (it then schedules itself again).
    private func armTimer() {
        guard let context, phase != .closed else { return }
        let due = nextDeadline
        if let timer {
            guard due < timerDue else { return }
            timer.cancel()
        }
        timerDue = due
        timer = try? context.eventLoop.assumeIsolated().scheduleCallback(at: due, handler: self)
    }

    /// The timer fired: whichever deadline passed is acted on, and the timer is set for the next.
    func handleScheduledCallback(eventLoop: some EventLoop) {
        timer = nil
        timerDue = .distantFuture
        guard let context else { return }
        let now = NIODeadline.now()
        switch phase {
        case .closed:
            return
        case .closing:
            if now >= deadline {
                context.close(promise: nil)
                return
            }
        case .open:
            if now >= nextPing {
                // A peer that did not answer the last ping within the interval is dropped.
                guard pingSent == nil else {
                    end(.goingAway, reason: "Ping timeout")
                    context.close(promise: nil)
                    return
                }
                let data = UInt64.random(in: .min ... .max)
                pingSent = data
                var buffer = context.channel.allocator.buffer(capacity: 8)
                buffer.writeInteger(data)
                let frame = WebSocketFrame(fin: true, opcode: .ping, data: buffer)
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
                nextPing = now + TimeAmount(relay.configuration.pingInterval)
            }
            switch role {
            case .hub where !proven && now >= deadline:
                close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason)
            case .client where stream != nil && now >= lastActivity + TimeAmount(relay.configuration.idleTimeout):
                end(RelayClose.idle.code, reason: RelayClose.idle.reason)
            default:
                break
            }
        }
        armTimer()
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
        deadline = .now() + TimeAmount(relay.configuration.proofTimeout)
    }

    /// One frame from the hub: a whole message is handled, a fragment kept until its message is whole.
    private func hubFrame(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        let maximum = relay.configuration.maximumPayload + RelayFrame.dataHeaderLength
        if frame.opcode == .continuation {
            guard var partial else {
                fail(.protocolError, reason: nil)
                return
            }
            self.partial = nil
            var data = frame.unmaskedData
            guard partial.bytes.readableBytes + data.readableBytes <= maximum else {
                close(RelayClose.frameTooLarge.code, reason: RelayClose.frameTooLarge.reason)
                return
            }
            partial.bytes.writeBuffer(&data)
            if frame.fin {
                hubMessage(partial.bytes, binary: partial.binary, context: context)
            } else {
                self.partial = partial
            }
        } else if partial != nil {
            fail(.protocolError, reason: nil)
        } else if frame.fin {
            hubMessage(frame.unmaskedData, binary: frame.opcode == .binary, context: context)
        } else {
            partial = (frame.opcode == .binary, frame.unmaskedData)
        }
    }

    /// The hub's answer to the challenge, then its frames to its streams.
    private func hubMessage(_ message: ByteBuffer, binary: Bool, context: ChannelHandlerContext) {
        guard let route, let peer else { return }
        guard proven else {
            guard binary, case .proof(let publicKey, let signature)? = RelayFrame(decoding: message),
                HubProof.verify(publicKey: publicKey, signature: signature, challenge: challenge, route: route)
            else {
                relay.logger.info("hub proof refused", metadata: ["route": "\(route)"])
                close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason)
                return
            }
            proven = true
            challenge = []
            deadline = .distantFuture
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
        guard binary, let relayFrame = RelayFrame(decoding: message) else { return }
        switch relayFrame {
        case .data(let stream, let payload):
            relay.configuration.observer?(
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
        // Admitted before the upgrade; the home may have left (or filled up) since.
        guard let route, let home = relay.homes.home(route), let peer else {
            close(RelayClose.homeOffline.code, reason: RelayClose.homeOffline.reason)
            return
        }
        do {
            stream = try home.openStream(peer, limit: relay.configuration.maximumStreamsPerHome)
        } catch {
            let refusal = error == .full ? RelayClose.tooManyStreams : RelayClose.homeOffline
            close(refusal.code, reason: refusal.reason)
            return
        }
        self.home = home
        if let stream { home.hub.send(RelayFrame.open(stream: stream).encoded(allocator: context.channel.allocator)) }
        lastActivity = .now()
    }

    /// A frame from the client: forwarded to the home within the limits.
    private func clientFrame(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        // A continuation only inside a fragmented message, and a new message only after the last one ended.
        guard (frame.opcode == .continuation) == clientMessageOpen else {
            fail(RelayClose.malformedFrame.code, reason: RelayClose.malformedFrame.reason)
            return
        }
        clientMessageOpen = !frame.fin
        // Frames, not messages: a stream is bytes, so each frame's payload is forwarded as it comes.
        let length = frame.length
        guard length <= relay.configuration.maximumPayload else {
            fail(RelayClose.frameTooLarge.code, reason: RelayClose.frameTooLarge.reason)
            return
        }
        guard length > 0, let home, let stream, let route else { return }
        lastActivity = .now()
        // The relay's frame in one buffer: the header, then the payload unmasked in place.
        var message = context.channel.allocator.buffer(capacity: RelayFrame.dataHeaderLength + length)
        message.writeInteger(RelayFrame.Kind.data.rawValue)
        message.writeInteger(stream)
        var data = frame.data
        message.writeBuffer(&data)
        if let key = frame.maskKey {
            message.moveReaderIndex(forwardBy: RelayFrame.dataHeaderLength)
            message.webSocketUnmask(key)
            message.moveReaderIndex(to: 0)
        }
        if let observer = relay.configuration.observer, let payload = message.getSlice(at: 5, length: length) {
            observer(ForwardedPayload(route: route, stream: stream, direction: .clientToHub, bytes: payload))
        }
        home.hub.send(message)
    }

    /// The home's bytes to the client; a client that lets its queue fill is closed as too slow.
    func deliverToClient(_ payload: ByteBuffer) {
        guard phase == .open, let context else { return }
        lastActivity = .now()
        if !context.channel.isWritable {
            queuedWhileUnwritable += 1
            if queuedWhileUnwritable > relay.configuration.clientQueueLength {
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
        if frame.opcode == .connectionClose {
            receivedClose(frame, context: context)
            return
        }
        guard phase == .open else { return }
        // RFC 6455 §5.1–5.3: both ends of the relay are clients, which mask every frame; no extension was agreed,
        // so no reserved bit may be set.
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            fail(RelayClose.malformedFrame.code, reason: RelayClose.malformedFrame.reason)
            return
        }
        // Every frame counts, pings and fragments too, before the hub's proof as after it.
        guard bucket.take() else {
            fail(RelayClose.tooManyFrames.code, reason: RelayClose.tooManyFrames.reason)
            return
        }
        switch frame.opcode {
        case .ping:
            guard frame.fin else {
                fail(.protocolError, reason: nil)
                return
            }
            // A peer that does not read its pongs gets none: answers never pile up in the relay's memory.
            guard context.channel.isWritable else { return }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                promise: nil
            )
        case .pong:
            var data = frame.unmaskedData
            if frame.fin, let pingSent, data.readableBytes == 8, data.readInteger(as: UInt64.self) == pingSent {
                self.pingSent = nil
            }
        case .binary, .continuation:
            switch role {
            case .hub: hubFrame(frame, context: context)
            case .client: clientFrame(frame, context: context)
            }
        case .text:
            fail(RelayClose.textRefused.code, reason: RelayClose.textRefused.reason)
        default:
            fail(RelayClose.malformedFrame.code, reason: RelayClose.malformedFrame.reason)
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
        deadline = .now() + .seconds(5)
        armTimer()
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
        switch phase {
        case .open:
            guard let error = error as? NIOWebSocketError else {
                context.close(promise: nil)
                return
            }
            // A malformed or oversized frame that the decoder refused.
            fail(error == .invalidFrameLength ? .messageTooLarge : .protocolError, reason: nil)
        case .closing, .closed:
            // The frame decoder refuses everything after its error; the connection is already on its way out.
            break
        }
    }

    /// Fails the connection (RFC 6455 §7.1.7): the close frame says why, then the relay sends nothing more.
    ///
    /// It still reads (and drops) what the peer sends, until the peer closes or `lingerAfterFailure` passes, so the
    /// peer reads the close frame rather than a reset for bytes the relay left unread.
    private func fail(_ code: WebSocketErrorCode, reason: String?) {
        guard phase == .open, let context else { return }
        end(code, reason: reason)
        deadline = .now() + Self.lingerAfterFailure
        armTimer()
        context.close(mode: .output, promise: nil)
    }

    /// How long a failed connection is read (and dropped) before it is closed.
    static let lingerAfterFailure = TimeAmount.seconds(2)

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        context.fireChannelInactive()
    }

    /// The connection is gone: the timer stops, a stream leaves its home, a hub's home goes offline.
    private func ended() {
        guard peer != nil else { return }
        phase = .closed
        peer = nil
        timer?.cancel()
        timer = nil
        partial = nil
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
