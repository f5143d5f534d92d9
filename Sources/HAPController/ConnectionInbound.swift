import HAP
import NIOCore

/// What a connection reports besides answers.
enum ConnectionEvent: Sendable {
    /// A session is ready: verified (or, for a plain connection, the TCP connection is open).
    case connected
    /// An `EVENT/1.0` message received on a verified session.
    case event(HTTPResponse)
    /// An established session ended: the accessory closed it, it failed, or a request timed out.
    case disconnected
    /// A connection could not be made or verified; reported on ``AccessoryConnection/eventLoop`` before the
    /// request that tried it hears of it.
    case unreachable
}

/// Hands received bytes and the channel's end to the connection, on the channel's event loop (the actor's executor).
final class ConnectionInbound: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private weak var connection: AccessoryConnection?
    private let generation: Int

    init(connection: AccessoryConnection, generation: Int) {
        self.connection = connection
        self.generation = generation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection?.receiveOnLoop(unwrapInboundIn(data), generation: generation)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.runOnLoop(generation) { $0.channelClosed(generation: $1) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
