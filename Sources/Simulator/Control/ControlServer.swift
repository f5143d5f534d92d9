import ByteStreams
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
        let address: ByteListener.Address
        switch endpoint {
        case .unixSocket(let path): address = .unixSocket(path: path)
        case .tcp(let host, let port): address = .tcp(host: host, port: port)
        }
        return Listener(listener: try await ByteListener.bind(address, backlog: 64, group: group), handler: handler)
    }

    /// A bound control endpoint.
    public struct Listener: Sendable {
        let listener: ByteListener
        let handler: any ControlHandler

        /// The TCP port actually bound (for `port: 0`), or `nil` for a Unix socket.
        public var port: Int? { listener.port }

        /// Serves connections until the task is cancelled; then closes the socket and every connection.
        public func run() async {
            await listener.run { await Self.serve($0, handler: handler) }
        }

        /// Reads lines and answers each in turn; a too-long line ends the connection with an error line.
        static func serve(_ connection: ByteConnection, handler: any ControlHandler) async {
            var pending: [UInt8] = []
            for await buffer in connection.received {
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
                    guard (try? await connection.write(ByteBuffer(string: reply + "\n"))) != nil else { return }
                }
                if pending.count > ControlCommand.maximumLineLength {
                    try? await connection.write(ByteBuffer(string: "error \(ControlCommandError.lineTooLong)\n"))
                    return
                }
            }
        }
    }
}
