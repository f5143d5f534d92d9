import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A listening socket whose accepted connections are ``ByteConnection``s, each served by a task of ``run(_:)``.
///
/// When it stops (``close()``, or the task running ``run(_:)`` is cancelled) it closes the socket and every
/// connection it accepted, served or still waiting: none outlives it, and nothing it holds needs finishing by hand.
package final class ByteListener: Sendable {
    /// Where to listen.
    package enum Address: Sendable, Equatable {
        /// A TCP address (a port of 0 picks a free one).
        case tcp(host: String, port: Int)
        /// A Unix domain socket at this path (a stale socket file there is replaced).
        case unixSocket(path: String)
    }

    /// The listening channel.
    private let channel: any Channel
    private let accepted: AsyncStream<ByteConnection>
    private let open: Open

    private init(channel: any Channel, accepted: AsyncStream<ByteConnection>, open: Open) {
        self.channel = channel
        self.accepted = accepted
        self.open = open
    }

    /// The TCP port bound (the free one picked for port 0), or `nil` for a Unix socket.
    package var port: Int? { channel.localAddress?.port }

    /// Binds `address`; connections wait (unread beyond their first bytes) until ``run(_:)`` serves them.
    package static func bind(
        _ address: Address,
        backlog: Int32 = 256,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> ByteListener {
        let (accepted, continuation) = AsyncStream.makeStream(of: ByteConnection.self)
        let open = Open(continuation: continuation)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: backlog)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let connection = try ByteConnection.wrap(child)
                    try child.pipeline.syncOperations.addHandler(Arrival(connection: connection, open: open))
                }
            }
        let channel: any Channel
        switch address {
        case .tcp(let host, let port):
            channel = try await bootstrap.bind(host: host, port: port).get()
        case .unixSocket(let path):
            channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        }
        return ByteListener(channel: channel, accepted: accepted, open: open)
    }

    /// Serves every accepted connection with `serve` in a task of its own until ``close()`` or cancellation.
    ///
    /// Each connection is closed when its `serve` returns. On ``close()`` or the cancellation of the calling task, it
    /// closes everything and returns once every `serve` has. With `onConnectionLoops`, each task runs on its
    /// connection's event loop (``LoopExecutor``). Call it once.
    package func run(
        onConnectionLoops: Bool = false,
        _ serve: @escaping @Sendable (ByteConnection) async -> Void
    ) async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                for await connection in accepted {
                    let executor = onConnectionLoops ? LoopExecutor(connection.channel.eventLoop) : nil
                    group.addTask(executorPreference: executor) {
                        await serve(connection)
                        connection.close()
                    }
                }
                // The stream ended: closed or cancelled. Connections still being served end with their sockets, and
                // their tasks are cancelled, in case one waits on something else.
                close()
                group.cancelAll()
            }
        } onCancel: {
            close()
        }
    }

    /// Stops listening and closes every connection it accepted.
    package func close() {
        channel.close(promise: nil)
        for child in open.stop() { child.close(promise: nil) }
    }

    /// The accepted connections still open, and whether the listener has stopped.
    private final class Open: Sendable {
        private let continuation: AsyncStream<ByteConnection>.Continuation
        private let state = NIOLockedValueBox<(stopped: Bool, channels: [ObjectIdentifier: any Channel])>((false, [:]))

        init(continuation: AsyncStream<ByteConnection>.Continuation) { self.continuation = continuation }

        /// Hands `connection` to ``ByteListener/run(_:)``; `false` (and nothing kept) once stopped.
        func admit(_ connection: ByteConnection) -> Bool {
            let channel = connection.channel
            let admitted = state.withLockedValue { state -> Bool in
                guard !state.stopped else { return false }
                state.channels[ObjectIdentifier(channel)] = channel
                return true
            }
            guard admitted else { return false }
            channel.closeFuture.whenComplete { [state] _ in
                state.withLockedValue { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
            continuation.yield(connection)
            return true
        }

        /// Stops admitting, ends the stream of accepted connections, and returns the open ones.
        func stop() -> [any Channel] {
            let channels = state.withLockedValue { state -> [any Channel] in
                state.stopped = true
                defer { state.channels = [:] }
                return Array(state.channels.values)
            }
            continuation.finish()
            return channels
        }
    }

    /// Hands the connection over once its channel is active, so the first write of `serve` finds it connected.
    private final class Arrival: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let connection: ByteConnection
        let open: Open

        init(connection: ByteConnection, open: Open) {
            self.connection = connection
            self.open = open
        }

        func channelActive(context: ChannelHandlerContext) {
            if !open.admit(connection) { context.close(promise: nil) }
            context.fireChannelActive()
        }
    }
}
