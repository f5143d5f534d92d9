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
    ///
    /// Past the connection cap the channel is closed at once (its descriptor freed before the next accept).
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let relay = relay
        return channel.eventLoop.makeCompletedFuture {
            guard relay.admitConnection() else {
                channel.close(promise: nil)
                return Value(channel: channel)
            }
            channel.closeFuture.whenComplete { _ in relay.connectionEnded() }
            try relay.configurePipeline(channel)
            return Value(channel: channel)
        }
    }

    /// Nothing to wait for: the handlers serve the channel until it closes.
    func handle(value: Value, logger: Logger) async {}
}

extension RelayServer {
    /// The handlers of a new connection: HTTP/1.1, upgraded to a WebSocket on `/v1/hub` and `/v1/client`.
    ///
    /// A client whose home is offline or full is refused before the upgrade (HTTP 400); `/healthz` answers `ok`.
    func configurePipeline(_ channel: any Channel) throws {
        let relay = self
        // A channel keeps its last receive buffer for the next read, so every idle connection holds one: NIO's
        // first size (2,048 bytes) was a third of an idle home's memory. 512 bytes hold a WebSocket upgrade
        // request; a busy connection's buffer still grows (to 64 KiB) as its reads fill it.
        try channel.syncOptions?.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)
        )
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: configuration.maximumPayload + RelayFrame.dataHeaderLength,
            // The relay's handler answers protocol errors itself: one handler fewer on every connection.
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let uri = URI(head.uri)
                let admitted: Bool =
                    switch RelaySocketHandler.role(path: uri.path) {
                    case .hub?: true
                    case .client?: relay.admitClient(route: uri.queryParameters["route"].flatMap { RouteID($0) })
                    case nil: false
                    }
                // Not upgraded: the request goes on to `RelayHTTPHandler`, which answers 400.
                return channel.eventLoop.makeSucceededFuture(admitted ? [:] : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let uri = URI(head.uri)
                    guard let role = RelaySocketHandler.role(path: uri.path) else { return }
                    let route = uri.queryParameters["route"].flatMap { RouteID($0) }
                    try channel.pipeline.syncOperations.addHandler(
                        RelaySocketHandler(role: role, route: route, relay: relay)
                    )
                }
            }
        )
        let http = RelayHTTPHandler(timeout: TimeAmount(configuration.requestTimeout))
        let handler = NIOLoopBound(http, eventLoop: channel.eventLoop)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(handler.value, promise: nil)
                }
            )
        )
        try pipeline.addHandler(http)
    }
}

/// The plain HTTP requests: `GET /healthz` answers `ok`; a WebSocket path that was not upgraded (a refused client)
/// 400 with an empty body; anything else 404.
///
/// Every answer is given as soon as its request's head arrives and closes the connection (no body is read, no
/// request is pipelined behind it), and a connection that has neither upgraded nor sent a whole head within
/// `timeout` of opening is closed: before its upgrade a connection costs the relay a bounded time and memory,
/// whatever its peer sends or leaves unread.
final class RelayHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var answered = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = context.loopBound
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Upgraded (or closed): the WebSocket's own timers take over.
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
        answered = true
        let path = URI(head.uri).path
        let healthy = head.method == .GET && path == "/healthz"
        let refused = RelaySocketHandler.role(path: path) != nil
        let body = ByteBuffer(string: healthy ? "ok\n" : "")
        var headers = HTTPHeaders()
        if healthy { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        let response = HTTPResponseHead(
            version: head.version,
            status: healthy ? .ok : refused ? .badRequest : .notFound,
            headers: headers
        )
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let loopBound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let inputClosed: Bool = if case ChannelEvent.inputClosed? = event as? ChannelEvent { true } else { false }
        if inputClosed || (event is ChannelShouldQuiesceEvent && !answered) {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request NIO could not parse: its 400 is on its way (NIO's protocol error handler); the connection ends.
        // (A refused upgrade also reports an error here; its request is answered like any other.)
        if error is HTTPParserError { context.close(promise: nil) }
    }
}
