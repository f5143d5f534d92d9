import NIOCore
import NIOPosix

/// Answers control commands; the simulator implements it, tests may too.
public protocol ControlHandler: Sendable {
    /// The reply line (without newline) to one command: `ok …` or `error …`.
    func handle(_ command: ControlCommand) async -> String
}

/// Serves the control interface: one command per line in, one reply line out, in order, per connection.
///
/// It listens on a Unix socket in the simulator's state folder (how `hearth-sim set …` finds the running
/// instance) and, when asked, on a TCP address (the `shared/peers` benchmark's control socket).
public struct ControlServer: Sendable {
    /// Where to listen.
    public enum Endpoint: Sendable, Equatable {
        /// A Unix domain socket at this path (replaced if a stale one exists).
        case unixSocket(path: String)
        /// A TCP address; loopback or a namespace's own address only.
        case tcp(host: String, port: Int)
    }

    private let handler: any ControlHandler
    private let group: any EventLoopGroup

    /// Makes a server that passes commands to `handler`.
    public init(handler: any ControlHandler, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.handler = handler
        self.group = group
    }

    /// Binds an endpoint; the returned listener serves once ``Listener/run()`` is called.
    public func bind(_ endpoint: Endpoint) async throws -> Listener {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 64)
        let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        switch endpoint {
        case .unixSocket(let path):
            channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { child in
                child.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: child) }
            }
        case .tcp(let host, let port):
            channel = try await bootstrap.bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: child) }
            }
        }
        return Listener(channel: channel, handler: handler)
    }

    /// A bound control endpoint.
    public struct Listener: Sendable {
        let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        let handler: any ControlHandler

        /// The TCP port actually bound (for `port: 0`), or `nil` for a Unix socket.
        public var port: Int? { channel.channel.localAddress?.port }

        /// Serves connections until the task is cancelled.
        public func run() async throws {
            try await withThrowingDiscardingTaskGroup { group in
                try await channel.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await Self.serve(connection, handler: handler) }
                    }
                }
            }
        }

        /// Reads lines and answers each in turn; a too-long line ends the connection with an error line.
        static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, handler: any ControlHandler) async {
            try? await connection.executeThenClose { inbound, outbound in
                var pending: [UInt8] = []
                for try await buffer in inbound {
                    pending.append(contentsOf: buffer.readableBytesView)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        var lineBytes = pending[..<newline]
                        if lineBytes.last == 0x0D { lineBytes = lineBytes.dropLast() }
                        let line = String(decoding: lineBytes, as: UTF8.self)
                        pending.removeSubrange(...newline)
                        let reply: String
                        do {
                            reply = await handler.handle(try ControlCommand(line: line))
                        } catch {
                            reply = "error \(error)"
                        }
                        try await outbound.write(ByteBuffer(string: reply + "\n"))
                    }
                    if pending.count > ControlCommand.maximumLineLength {
                        try await outbound.write(ByteBuffer(string: "error \(ControlCommandError.lineTooLong)\n"))
                        return
                    }
                }
            }
        }
    }
}
