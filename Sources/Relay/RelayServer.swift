import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The relay: hubs connect `GET /v1/hub?route=ID` and prove their key; clients connect `GET /v1/client?route=ID`.
///
/// Each client gets one stream to its hub. It forwards bytes it cannot read and keeps no state beyond its memory.
public final class RelayServer: Sendable {
    /// The listening address and the limits.
    public struct Configuration: Sendable {
        /// The address to listen on.
        public var host: String
        /// The port (0: any free one).
        public var port: Int
        /// Open client streams one home may have.
        public var maximumStreamsPerHome: Int = 64
        /// Frames a second a client connection may send, on average.
        public var clientFramesPerSecond: Double = 200
        /// Frames a client connection may send at once above its rate.
        public var clientFrameBurst: Double = 400
        /// Frames a second a hub link may send, on average (it carries all of its home's streams).
        public var hubFramesPerSecond: Double = 5000
        /// Frames a hub link may send at once above its rate.
        public var hubFrameBurst: Double = 10000
        /// The largest payload of one message, in bytes.
        public var maximumPayload: Int = 16384
        /// A client stream on which nothing crossed for this long is closed.
        public var idleTimeout: Duration = .seconds(300)
        /// How long a hub has to answer the challenge.
        public var proofTimeout: Duration = .seconds(10)
        /// How often the relay pings each WebSocket; one that does not answer in that time is closed.
        public var pingInterval: Duration = .seconds(30)
        /// Frames from the hub queued toward one client before that client is closed as too slow.
        public var clientQueueLength: Int = 256
        /// TLS: the certificate chain and key, when the relay terminates TLS itself.
        public var tls: TLSConfiguration?
        /// Sees every payload the relay forwards (tests; `nil` in production).
        public var observer: (@Sendable (ForwardedPayload) -> Void)?

        /// A configuration with the default limits.
        public init(host: String = "127.0.0.1", port: Int = 0) {
            self.host = host
            self.port = port
        }
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    let homes = HomeRegistry()
    let logger: Logger

    /// A relay with `configuration`, logging to `logger`.
    public init(configuration: Configuration, logger: Logger = Logger(label: "hearth.relay")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The number of homes connected now.
    public var connectedHomes: Int { homes.count }

    /// The application: HTTP/1.1 with WebSocket upgrade, over TLS when configured.
    ///
    /// Every connection is served by channel handlers on its event loop (``RelaySocketHandler``), so no task waits
    /// per connection; `GET /healthz` answers `ok`.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let relay = self
        let plain = HTTPServerBuilder { _ in RelayChildChannel(relay: relay) }
        let server = try configuration.tls.map { try HTTPServerBuilder.tls(plain, tlsConfiguration: $0) } ?? plain
        return Application(
            // The application needs a responder; the channel handlers answer every request themselves.
            router: Router(context: BasicRequestContext.self),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "hearth-relay"
            ),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }

    /// Whether a client may upgrade to a stream of `route`: refused (HTTP 400, whichever the reason, so nothing
    /// tells which homes exist; the relay's log says why) when its home is offline or already has its maximum of
    /// streams.
    ///
    /// Refused before the upgrade rather than with a WebSocket closed the moment it opens: a client that receives
    /// the upgrade and the close in one read may never see the close (swift-websocket's client then waits forever).
    func admitClient(route: RouteID?) -> Bool {
        guard let route, let home = homes.home(route) else {
            logger.debug("client refused: home offline")
            return false
        }
        guard home.streamCount < configuration.maximumStreamsPerHome else {
            logger.info("client refused: too many streams", metadata: ["route": "\(route)"])
            return false
        }
        return true
    }
}

/// A value several tasks read and write under a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    /// Runs `body` with the value locked.
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}
