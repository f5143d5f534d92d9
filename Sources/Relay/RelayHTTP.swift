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

/// The plain HTTP requests: `GET /healthz` answers `ok`; a WebSocket path that was not upgraded (a refused client)
/// 400 with an empty body, then the connection closes; anything else 404.
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
            let path = URI(head.uri).path
            let healthy = head.method == .GET && path == "/healthz"
            let refused = RelaySocketHandler.role(path: path) != nil
            let keepAlive = head.isKeepAlive && !refused
            let body = ByteBuffer(string: healthy ? "ok\n" : "")
            var headers = HTTPHeaders()
            if healthy { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
            headers.add(name: "Content-Length", value: "\(body.readableBytes)")
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let response = HTTPResponseHead(
                version: head.version,
                status: healthy ? .ok : refused ? .badRequest : .notFound,
                headers: headers
            )
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
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
