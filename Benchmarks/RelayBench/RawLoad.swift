// Phase 4: the relay alone under the active load. Clients and hubs speak the relay's own protocol from NIO channel
// handlers in this process (no ClientForwarder, HubLink or TCP hop to an echo target), so the load costs this process
// little and what is added over the same clients on plain TCP to an echo is the relay's part: a client's frame in,
// to its hub, the hub's echo back, to the client.
import Crypto
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Relay

/// The round trips (nanoseconds) and failures of one raw load, from every client's handler.
final class RawResults: Sendable {
    private let state = NIOLockedValueBox<(samples: [Int64], failed: Int)>(([], 0))

    /// Adds one client's round trips, and whether it failed.
    func add(_ samples: [Int64], failed: Bool) {
        state.withLockedValue {
            $0.samples += samples
            if failed { $0.failed += 1 }
        }
    }

    /// Every round trip so far, and the failed clients.
    var all: (samples: [Int64], failed: Int) { state.withLockedValue { $0 } }
}

/// One client's schedule: `size` bytes at `next`, then every `interval` after it, each once the previous answer is
/// in, until `end`; slots missed while busy are skipped, not sent in a burst.
struct Pacer {
    let size: Int
    let interval: TimeAmount
    let end: NIODeadline
    var next: NIODeadline
    var sentAt: NIODeadline?
    var received = 0
    var samples: [Int64] = []

    /// Counts `bytes` of the answer; true when the answer is whole (the round trip is recorded, the next slot set).
    mutating func receive(_ bytes: Int) -> Bool {
        received += bytes
        guard received >= size, let sentAt else { return false }
        received -= size
        let now = NIODeadline.now()
        samples.append((now - sentAt).nanoseconds)
        self.sentAt = nil
        next = next + interval
        while next < now { next = next + interval }
        return true
    }
}

/// Drives a pacer on its channel's event loop and reports to `results` when the schedule ends or the channel closes;
/// its handler only frames each request (`send`) and counts the answer's bytes.
final class RawClient {
    var pacer: Pacer
    let results: RawResults
    let done: EventLoopPromise<Void>
    let request: ByteBuffer
    var finished = false

    init(pacer: Pacer, results: RawResults, done: EventLoopPromise<Void>) {
        self.pacer = pacer
        self.results = results
        self.done = done
        request = ByteBuffer(repeating: 0x5a, count: pacer.size)
    }

    /// Waits for the next slot, then sends the request with `send`, or ends the run after its end.
    func schedule(context: ChannelHandlerContext, send: @escaping (ByteBuffer) -> Void) {
        context.eventLoop.assumeIsolated().scheduleTask(deadline: pacer.next) { [self] in
            guard !finished else { return }
            guard NIODeadline.now() < pacer.end else {
                finish(failed: false)
                context.close(promise: nil)
                return
            }
            pacer.sentAt = .now()
            send(request)
        }
    }

    /// Counts answer bytes; schedules the next request when the answer is whole.
    func received(_ bytes: Int, context: ChannelHandlerContext, send: @escaping (ByteBuffer) -> Void) {
        if pacer.receive(bytes) { schedule(context: context, send: send) }
    }

    /// The channel closed: reports, failed when that was before the schedule's end.
    func closed() { finish(failed: NIODeadline.now() < pacer.end) }

    /// Reports once.
    func finish(failed: Bool) {
        guard !finished else { return }
        finished = true
        results.add(pacer.samples, failed: failed)
        done.succeed()
    }
}

/// A raw client on plain TCP (the floor: straight to the echo target).
final class RawTCPClient: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let client: RawClient

    init(_ client: RawClient) { self.client = client }

    private func sender(_ context: ChannelHandlerContext) -> (ByteBuffer) -> Void {
        { [self] request in context.writeAndFlush(wrapOutboundOut(request), promise: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        client.schedule(context: context, send: sender(context))
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        client.received(unwrapInboundIn(data).readableBytes, context: context, send: sender(context))
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// A raw client of the relay: one WebSocket to `/v1/client?route=…`, its requests as masked binary frames.
final class RawRelayClient: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let client: RawClient

    init(_ client: RawClient) { self.client = client }

    private func sender(_ context: ChannelHandlerContext) -> (ByteBuffer) -> Void {
        { [self] request in
            let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: request)
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added by the upgrade: the channel is open already.
        client.schedule(context: context, send: sender(context))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary, .continuation: client.received(frame.length, context: context, send: sender(context))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose: context.close(promise: nil)
        default: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// A raw hub: proves its key to the relay, then echoes every stream's data back on the same stream.
final class RawHub: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let identity: Curve25519.Signing.PrivateKey
    let accepted: EventLoopPromise<Void>

    init(identity: Curve25519.Signing.PrivateKey, accepted: EventLoopPromise<Void>) {
        self.identity = identity
        self.accepted = accepted
    }

    private func send(_ frame: RelayFrame, context: ChannelHandlerContext) {
        let data = frame.encoded(allocator: context.channel.allocator)
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: data)),
            promise: nil
        )
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            switch RelayFrame(decoding: frame.unmaskedData) {
            case .challenge(let challenge)?:
                guard let answer = try? HubProof.answer(challenge: challenge, identity: identity) else {
                    context.close(promise: nil)
                    return
                }
                send(.proof(publicKey: answer.publicKey, signature: answer.signature), context: context)
            case .accepted?: accepted.succeed()
            case .data(let stream, let payload)?: send(.data(stream: stream, payload: payload), context: context)
            default: break
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose: context.close(promise: nil)
        default: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        accepted.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Sends the upgrade request when the connection opens; any answer it sees means the upgrade was refused.
final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let path: String

    init(path: String) { self.path = path }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1")
        headers.add(name: "Content-Length", value: "0")
        context.write(
            wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))),
            promise: nil
        )
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.close(promise: nil) }
}

/// Opens a WebSocket to `path` on the relay at `port`; `upgraded` adds the handler once the upgrade is done.
func connectWebSocket(
    port: Int,
    path: String,
    upgraded: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
) -> EventLoopFuture<any Channel> {
    ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .connectTimeout(.seconds(10))
        .channelInitializer { channel in
            let upgrader = NIOWebSocketClientUpgrader(
                maxFrameSize: 1 << 16,
                automaticErrorHandling: false,
                upgradePipelineHandler: { channel, _ in upgraded(channel) }
            )
            let configuration: NIOHTTPClientUpgradeSendableConfiguration = (
                upgraders: [upgrader],
                completionHandler: { context in context.pipeline.removeHandler(name: "upgrade-request", promise: nil) }
            )
            // The relay's challenge may come in the same read as its 101: those bytes go on to the WebSocket.
            return channel.pipeline.addHTTPClientHandlers(
                leftOverBytesStrategy: .forwardBytes,
                withClientUpgrade: configuration
            ).flatMapThrowing {
                try channel.pipeline.syncOperations.addHandler(UpgradeRequester(path: path), name: "upgrade-request")
            }
        }
        .connect(host: "127.0.0.1", port: port)
}

/// Connects `count` raw hubs to the relay at `port`; returns their routes once the relay accepted each proof.
func connectRawHubs(count: Int, port: Int) async throws -> [RouteID] {
    var routes: [RouteID] = []
    for _ in 0..<count {
        let identity = Curve25519.Signing.PrivateKey()
        let route = RouteID(publicKey: identity.publicKey.rawRepresentation)
        let accepted = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        _ = try await connectWebSocket(port: port, path: "/v1/hub?route=\(route)") { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RawHub(identity: identity, accepted: accepted))
            }
        }.get()
        try await accepted.futureResult.get()
        routes.append(route)
    }
    return routes
}

/// Runs `clients` raw clients at `rate` requests a second each for `seconds`; the round trips and failed clients.
///
/// The clients connect first (gradually), then all start together; `connect(index, pacer, results, done)` opens
/// client `index`'s connection with its handler.
func rawLoad(
    clients: Int,
    size: Int,
    rate: Double,
    seconds: Double,
    connect: (Int, Pacer, RawResults, EventLoopPromise<Void>) -> EventLoopFuture<any Channel>
) async -> (Summary, Int, Int) {
    let results = RawResults()
    let interval = TimeAmount.nanoseconds(Int64(1e9 / rate))
    let start = NIODeadline.now() + .seconds(2) + .milliseconds(Int64(3 * clients))
    let end = start + .nanoseconds(Int64(seconds * 1e9))
    var finished: [EventLoopFuture<Void>] = []
    for client in 0..<clients {
        let offset = TimeAmount.nanoseconds(interval.nanoseconds * Int64(client) / Int64(max(clients, 1)))
        let pacer = Pacer(size: size, interval: interval, end: end, next: start + offset)
        let done = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let channel = connect(client, pacer, results, done)
        channel.whenFailure { _ in
            results.add([], failed: true)
            done.succeed()
        }
        // A client whose answer never comes is closed 10 s after the end rather than waited for forever.
        channel.whenSuccess { channel in
            channel.eventLoop.scheduleTask(deadline: end + .seconds(10)) { channel.close(promise: nil) }
        }
        finished.append(done.futureResult)
        if client % 50 == 49 { _ = try? await channel.get() }
    }
    for future in finished { try? await future.get() }
    let (samples, failed) = results.all
    return (Summary(samples.map { Duration.nanoseconds($0) }), samples.count, failed)
}
