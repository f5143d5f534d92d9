import ByteStreams
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The client's end of the relay: a loopback TCP listener that turns connections into relay streams.
///
/// Every accepted connection becomes one stream to the home through the relay. It never reads the bytes it splices.
public final class ClientForwarder: Sendable {
    /// Where the relay is, which home, and where to listen.
    public struct Configuration: Sendable {
        /// The relay's base URL, `ws://host:port` or `wss://host:port`.
        public var relayURL: String
        /// The home's routing id.
        public var route: RouteID
        /// The local address to listen on.
        public var listenHost: String = "127.0.0.1"
        /// The local port (0: any free one).
        public var listenPort: Int = 0
        /// The largest payload the relay accepts in one message (its `maximumPayload`).
        public var maximumPayload: Int = 16384
        /// TLS settings for a `wss://` relay (`nil`: the system's defaults).
        public var tls: TLSConfiguration?
        /// How long the relay may take to accept a stream (answer its WebSocket upgrade) before the local
        /// connection is closed.
        public var upgradeTimeout: Duration = .seconds(15)

        /// A configuration listening on a free loopback port.
        public init(relayURL: String, route: RouteID) {
            self.relayURL = relayURL
            self.route = route
        }
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    /// The port it listens on.
    public let port: Int
    private let listener: ByteListener
    private let logger: Logger
    private let onStreamEnd: @Sendable (WebSocketCloseFrame?) -> Void

    /// Binds the listener; ``run()`` accepts.
    ///
    /// `onStreamEnd` hears each stream's close from the relay.
    public init(
        configuration: Configuration,
        logger: Logger = Logger(label: "hearth.relay.client"),
        onStreamEnd: @escaping @Sendable (WebSocketCloseFrame?) -> Void = { _ in }
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        self.onStreamEnd = onStreamEnd
        listener = try await ByteListener.bind(.tcp(host: configuration.listenHost, port: configuration.listenPort))
        port = listener.port ?? configuration.listenPort
    }

    /// Accepts connections until ``close()`` or the task's cancellation; each runs as its own stream.
    ///
    /// When it returns, the listener and every local connection it accepted are closed.
    public func run() async {
        await listener.run { await self.serve($0) }
    }

    /// Stops listening and closes every local connection, ending their streams.
    public func close() {
        listener.close()
    }

    /// One local connection as one stream through the relay; closed unopened when the relay does not accept the
    /// stream within ``Configuration/upgradeTimeout``.
    private func serve(_ connection: ByteConnection) async {
        let configuration = configuration
        let logger = logger
        let waited = await waitAbandoning(startWithin: configuration.upgradeTimeout) { upgraded in
            do {
                return try await WebSocketClient.connect(
                    url: "\(configuration.relayURL)/v1/client?route=\(configuration.route)",
                    configuration: .init(maxFrameSize: configuration.maximumPayload),
                    tlsConfiguration: configuration.tls,
                    logger: logger
                ) { wsInbound, wsOutbound, _ in
                    upgraded()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await var chunk in connection.received {
                                while chunk.readableBytes > 0,
                                    let piece = chunk.readSlice(
                                        length: min(chunk.readableBytes, configuration.maximumPayload)
                                    )
                                {
                                    try await wsOutbound.write(.binary(piece))
                                }
                            }
                        }
                        group.addTask {
                            for try await frame in wsInbound where frame.data.readableBytes > 0 {
                                try await connection.write(frame.data)
                            }
                        }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                logger.debug("stream ended", metadata: ["error": "\(error)"])
                return nil
            }
        }
        switch waited {
        case .finished(let close): onStreamEnd(close)
        case .timedOut, .cancelled: onStreamEnd(nil)
        }
    }
}
