import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP or Unix-socket connection as an async sequence of received bytes and an async write.
///
/// Backpressure both ways: a write returns once its bytes are in the kernel, and the connection stops reading from
/// the network while more than ``highWatermark`` bytes it received wait to be taken (reading again below
/// ``lowWatermark``), so a slow side of a splice holds up the fast one instead of filling memory.
package final class ByteConnection: Sendable {
    /// The channel.
    package let channel: any Channel
    /// The bytes received, in order; finishes when the connection closes.
    package let received: Received
    /// How many received bytes wait to be taken, and whether reading is paused.
    package let meter: Meter

    /// Received bytes waiting to be taken above which the connection stops reading.
    package static let highWatermark = 256 * 1024
    /// Waiting bytes below which a paused connection reads again.
    package static let lowWatermark = 64 * 1024

    private init(channel: any Channel, received: Received, meter: Meter) {
        self.channel = channel
        self.received = received
        self.meter = meter
    }

    /// Adds the forwarding handler to `channel` and returns the connection.
    package static func wrap(_ channel: any Channel) throws -> ByteConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let meter = Meter(channel: channel)
        try channel.pipeline.syncOperations.addHandler(Forwarder(continuation: continuation, meter: meter))
        return ByteConnection(channel: channel, received: Received(stream: stream, meter: meter), meter: meter)
    }

    /// Connects to `host:port`.
    package static func connect(
        host: String,
        port: Int,
        timeout: TimeAmount = .seconds(10)
    ) async throws -> ByteConnection {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try ByteConnection.wrap(channel) }
            }
    }

    /// Sends `bytes`; returns once they are written to the kernel.
    package func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Sends `buffer`; returns once it is written to the kernel.
    package func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return }
        try await channel.writeAndFlush(buffer)
    }

    /// Closes the connection.
    package func close() {
        channel.close(promise: nil)
    }

    /// The received bytes; taking a chunk tells the meter, which may let the connection read again.
    package struct Received: AsyncSequence, Sendable {
        package typealias Element = ByteBuffer
        let stream: AsyncStream<ByteBuffer>
        let meter: Meter

        /// Iterates the chunks in order.
        package struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<ByteBuffer>.Iterator
            let meter: Meter

            package mutating func next() async -> ByteBuffer? {
                guard let bytes = await base.next() else { return nil }
                meter.taken(bytes.readableBytes)
                return bytes
            }
        }

        package func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), meter: meter)
        }
    }

    /// Counts the bytes waiting to be taken and turns the channel's reading off and on by them.
    ///
    /// Reading is turned off above the high watermark and on again below the low one. It is switched only on the
    /// channel's event loop, and a resume checks when it runs that no pause came after it was asked for.
    package final class Meter: Sendable {
        private let channel: any Channel
        private let state = NIOLockedValueBox<(waiting: Int, paused: Bool)>((0, false))

        init(channel: any Channel) { self.channel = channel }

        /// The received bytes not yet taken.
        package var waiting: Int { state.withLockedValue { $0.waiting } }
        /// Whether the connection has stopped reading.
        package var isPaused: Bool { state.withLockedValue { $0.paused } }

        /// `count` bytes arrived (on the event loop); pauses reading above the high watermark.
        func arrived(_ count: Int) {
            let pause = state.withLockedValue { state -> Bool in
                state.waiting += count
                guard !state.paused, state.waiting > ByteConnection.highWatermark else { return false }
                state.paused = true
                return true
            }
            if pause { _ = channel.setOption(ChannelOptions.autoRead, value: false) }
        }

        /// `count` bytes were taken; reading resumes below the low watermark.
        func taken(_ count: Int) {
            let resume = state.withLockedValue { state -> Bool in
                state.waiting -= count
                guard state.paused, state.waiting < ByteConnection.lowWatermark else { return false }
                state.paused = false
                return true
            }
            guard resume else { return }
            let channel = channel
            channel.eventLoop.execute { [state] in
                guard !state.withLockedValue({ $0.paused }) else { return }
                _ = channel.setOption(ChannelOptions.autoRead, value: true)
            }
        }
    }

    /// Yields what arrives and finishes at the end.
    private final class Forwarder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation
        let meter: Meter

        init(continuation: AsyncStream<ByteBuffer>.Continuation, meter: Meter) {
            self.continuation = continuation
            self.meter = meter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            meter.arrived(bytes.readableBytes)
            continuation.yield(bytes)
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
