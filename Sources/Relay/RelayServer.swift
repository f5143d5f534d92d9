import ByteStreams
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
        /// A connection that has neither upgraded to a WebSocket nor sent a whole request head this long after it
        /// opened is closed.
        public var requestTimeout: Duration = .seconds(30)
        /// The most connections open at once (hubs, clients and plain requests together).
        ///
        /// A connection beyond it is closed as soon as it is accepted. `nil`: the open-file limit less a reserve
        /// (``RelayServer/defaultMaximumConnections()``), so the relay never runs out of descriptors while accepting.
        public var maximumConnections: Int?
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
    /// The connections open now, and whether reaching the cap was logged in this episode.
    private let openConnections = Atomic<Int>(0)
    private let warnedAtCap = Atomic<Bool>(false)
    /// The cap in force: the configuration's, or the default from the open-file limit when the relay was made.
    let connectionCap: Int

    /// A relay with `configuration`, logging to `logger`.
    public init(configuration: Configuration, logger: Logger = Logger(label: "hearth.relay")) {
        self.configuration = configuration
        self.logger = logger
        connectionCap = max(1, configuration.maximumConnections ?? Self.defaultMaximumConnections())
    }

    /// The connection cap for this process: its open-file soft limit less a reserve for logs, TLS files and
    /// listeners (a quarter of the limit, at most 256).
    public static func defaultMaximumConnections() -> Int {
        let soft = OpenFileLimit.current().soft
        return max(16, soft - min(256, soft / 4))
    }

    /// Counts a new connection in; `false` (and nothing counted) when the cap is reached.
    func admitConnection() -> Bool {
        let open = openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        guard open > connectionCap else { return true }
        openConnections.wrappingSubtract(1, ordering: .relaxed)
        if !warnedAtCap.exchange(true, ordering: .relaxed) {
            logger.warning(
                "connections reached their limit; new ones are closed until some end",
                metadata: ["limit": "\(connectionCap)"]
            )
        }
        return false
    }

    /// Counts a connection out; the next time the cap is reached is logged again once nine tenths are free.
    func connectionEnded() {
        let open = openConnections.wrappingSubtract(1, ordering: .relaxed).newValue
        if open < connectionCap * 9 / 10 { warnedAtCap.store(false, ordering: .relaxed) }
    }

    /// The connections open now (hubs, clients, plain requests).
    public var connectionCount: Int { openConnections.load(ordering: .relaxed) }

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
        let server =
            try configuration.tls.map { configured in
                // Not TLS 1.0 or 1.1 (RFC 8996), which NIOSSL would otherwise speak.
                var tls = configured
                if [.tlsv1, .tlsv11].contains(tls.minimumTLSVersion) { tls.minimumTLSVersion = .tlsv12 }
                return try HTTPServerBuilder.tls(plain, tlsConfiguration: tls)
            } ?? plain
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
