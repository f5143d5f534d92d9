import NIOCore
import NIOPosix

/// A TCP connection as an async stream of received bytes and an async write, for the secure tunnel.
final class ByteConnection: Sendable {
    /// The channel.
    let channel: any Channel
    /// The bytes received, in order; finishes when the connection closes.
    let received: AsyncStream<ByteBuffer>

    private init(channel: any Channel, received: AsyncStream<ByteBuffer>) {
        self.channel = channel
        self.received = received
    }

    /// Adds the forwarding handler to `channel` and returns the connection.
    static func wrap(_ channel: any Channel) throws -> ByteConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        try channel.pipeline.syncOperations.addHandler(Forwarder(continuation: continuation))
        return ByteConnection(channel: channel, received: stream)
    }

    /// Connects to `host:port`.
    static func connect(host: String, port: Int, timeout: TimeAmount = .seconds(10)) async throws -> ByteConnection {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try ByteConnection.wrap(channel) }
            }
    }

    /// Sends `bytes`.
    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Closes the connection.
    func close() {
        channel.close(promise: nil)
    }

    /// Yields what arrives and finishes at the end.
    private final class Forwarder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation

        init(continuation: AsyncStream<ByteBuffer>.Continuation) { self.continuation = continuation }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            continuation.finish()
            context.close(promise: nil)
        }
    }
}
