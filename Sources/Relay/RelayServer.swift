import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import Synchronization

/// The relay: hubs connect `GET /v1/hub?route=ID` and prove their key; clients connect `GET /v1/client?route=ID`
/// and each gets one stream to that hub. It forwards bytes it cannot read and keeps no state beyond its memory.
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

    /// The HTTP router: `GET /healthz` only (everything else is a WebSocket).
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("/healthz") { _, _ in "ok\n" }
        return router
    }

    /// The WebSocket routes.
    func makeWebSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let relay = self
        router.ws("/v1/hub") { inbound, outbound, context in
            let route = context.request.uri.queryParameters["route"].flatMap { RouteID($0) }
            await relay.serveHub(route: route, inbound: inbound, outbound: outbound)
        }
        router.ws(
            "/v1/client",
            shouldUpgrade: { request, _ in relay.admitClient(request) },
            onUpgrade: { inbound, outbound, context in
                let route = context.request.uri.queryParameters["route"].flatMap { RouteID($0) }
                await relay.serveClient(route: route, inbound: inbound, outbound: outbound)
            }
        )
        return router
    }

    /// The application: HTTP/1.1 with WebSocket upgrade, over TLS when configured.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let webSocket = HTTPServerBuilder.http1WebSocketUpgrade(
            webSocketRouter: makeWebSocketRouter(),
            configuration: .init(
                http1: .init(idleTimeout: .seconds(30)),
                ws: .init(
                    maxFrameSize: configuration.maximumPayload + RelayFrame.dataHeaderLength,
                    autoPing: .enabled(timePeriod: configuration.pingInterval),
                    closeTimeout: .seconds(5)
                )
            )
        )
        let server =
            try configuration.tls.map { try HTTPServerBuilder.tls(webSocket, tlsConfiguration: $0) } ?? webSocket
        return Application(
            router: makeRouter(),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "hearth-relay"
            ),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }

    // MARK: Hubs

    /// One hub link: challenge, proof, then frames to and from its streams until it goes away.
    func serveHub(route: RouteID?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let route else {
            try? await outbound.close(.policyViolation, reason: "the routing id must be 32 lowercase hex digits")
            return
        }
        var generator = SystemRandomNumberGenerator()
        let challenge = (0..<HubProof.challengeLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let proven = Shared(false)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [proofTimeout = configuration.proofTimeout] in
                try? await Task.sleep(for: proofTimeout)
                if !Task.isCancelled, !proven.withLock({ $0 }) {
                    try? await outbound.close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason)
                }
            }
            var messages = inbound.messages(maxSize: configuration.maximumPayload + RelayFrame.dataHeaderLength)
                .makeAsyncIterator()
            do {
                try await outbound.write(.binary(RelayFrame.challenge(challenge).encoded()))
                guard case .binary(let answer)? = try await messages.next(),
                    case .proof(let publicKey, let signature)? = RelayFrame(decoding: answer),
                    HubProof.verify(publicKey: publicKey, signature: signature, challenge: challenge, route: route)
                else {
                    logger.info("hub proof refused", metadata: ["route": "\(route)"])
                    try? await outbound.close(RelayClose.proofRefused.code, reason: RelayClose.proofRefused.reason)
                    group.cancelAll()
                    return
                }
                proven.withLock { $0 = true }
                group.cancelAll()
            } catch {
                group.cancelAll()
                return
            }
            // The home is listed before the hub hears it is accepted, so a client the hub sends at once finds it.
            let home = Home(route: route, hub: outbound)
            if let older = homes.attach(home) {
                older.shutDown()
                Task { try? await older.hub.close(RelayClose.replaced.code, reason: RelayClose.replaced.reason) }
            }
            do {
                try await outbound.write(.binary(RelayFrame.accepted.encoded()))
            } catch {
                homes.detach(home)
                home.shutDown()
                return
            }
            logger.info("home connected", metadata: ["route": "\(route)"])
            await relayFromHub(home: home, messages: &messages, outbound: outbound)
            homes.detach(home)
            home.shutDown()
            logger.info("home disconnected", metadata: ["route": "\(route)"])
        }
    }

    /// Forwards the hub's frames to its streams until the link ends or breaks a limit.
    private func relayFromHub(
        home: Home,
        messages: inout WebSocketInboundMessageStream.AsyncIterator,
        outbound: WebSocketOutboundWriter
    ) async {
        var bucket = TokenBucket(rate: configuration.hubFramesPerSecond, burst: configuration.hubFrameBurst)
        do {
            while let message = try await messages.next() {
                guard bucket.take() else {
                    try? await outbound.close(RelayClose.tooManyFrames.code, reason: RelayClose.tooManyFrames.reason)
                    return
                }
                guard case .binary(let bytes) = message, let frame = RelayFrame(decoding: bytes) else { continue }
                switch frame {
                case .data(let stream, let payload):
                    configuration.observer?(
                        ForwardedPayload(route: home.route, stream: stream, direction: .hubToClient, bytes: payload)
                    )
                    if !home.deliver(payload, to: stream) {
                        try await outbound.write(.binary(RelayFrame.close(stream: stream).encoded()))
                    }
                case .close(let stream):
                    home.endStream(stream, code: .normalClosure, reason: "closed by the home")
                default:
                    continue
                }
            }
        } catch {
            logger.debug("hub link ended", metadata: ["error": "\(type(of: error))"])
        }
    }

    // MARK: Clients

    /// Refuses a client before its upgrade when its home is offline or already has its maximum of streams: the
    /// client hears 400 whichever it is (so nothing tells which homes exist), the relay's log says why.
    ///
    /// Refused before the upgrade rather than with a WebSocket closed the moment it opens: a client that receives
    /// the upgrade and the close in one read may never see the close (swift-websocket's client then waits forever).
    func admitClient(_ request: Request) -> RouterShouldUpgrade {
        guard let route = request.uri.queryParameters["route"].flatMap({ RouteID($0) }), let home = homes.home(route)
        else {
            logger.debug("client refused: home offline")
            return .dontUpgrade
        }
        guard home.streamCount < configuration.maximumStreamsPerHome else {
            logger.info("client refused: too many streams", metadata: ["route": "\(route)"])
            return .dontUpgrade
        }
        return .upgrade([:])
    }

    /// One client stream: refused with "home offline" unless its home is connected (a home that left since its
    /// admission), then spliced to the home.
    func serveClient(route: RouteID?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let route, let home = homes.home(route) else {
            try? await outbound.close(RelayClose.homeOffline.code, reason: RelayClose.homeOffline.reason)
            return
        }
        let stream: UInt32
        let events: AsyncStream<StreamEvent>
        do {
            (stream, events) = try home.openStream(
                limit: configuration.maximumStreamsPerHome,
                queueLength: configuration.clientQueueLength
            )
        } catch {
            let refusal = error == .full ? RelayClose.tooManyStreams : RelayClose.homeOffline
            try? await outbound.close(refusal.code, reason: refusal.reason)
            return
        }
        do {
            try await home.hub.write(.binary(RelayFrame.open(stream: stream).encoded()))
        } catch {
            _ = home.forgetStream(stream)
            try? await outbound.close(RelayClose.homeOffline.code, reason: RelayClose.homeOffline.reason)
            return
        }
        let lastActivity = Shared(ContinuousClock.now)
        let ending = await withTaskGroup(of: (WebSocketErrorCode, String)?.self) { group in
            // The home's bytes to the client.
            group.addTask {
                for await event in events {
                    switch event {
                    case .data(let payload):
                        lastActivity.withLock { $0 = .now }
                        do { try await outbound.write(.binary(payload)) } catch { return nil }
                    case .close(let code, let reason):
                        return (code, reason)
                    }
                }
                return Task.isCancelled ? nil : RelayClose.tooSlow
            }
            // The client's bytes to the home.
            group.addTask { [configuration] in
                var bucket = TokenBucket(
                    rate: configuration.clientFramesPerSecond,
                    burst: configuration.clientFrameBurst
                )
                do {
                    // Frames, not messages: a stream is bytes, so each frame's payload is forwarded as it comes.
                    for try await frame in inbound {
                        guard bucket.take() else { return RelayClose.tooManyFrames }
                        let payload = frame.data
                        guard payload.readableBytes <= configuration.maximumPayload else {
                            return RelayClose.frameTooLarge
                        }
                        guard payload.readableBytes > 0 else { continue }
                        lastActivity.withLock { $0 = .now }
                        configuration.observer?(
                            ForwardedPayload(route: route, stream: stream, direction: .clientToHub, bytes: payload)
                        )
                        try await home.hub.write(.binary(RelayFrame.data(stream: stream, payload: payload).encoded()))
                    }
                } catch {
                    return Task.isCancelled ? nil : RelayClose.homeOffline
                }
                return nil
            }
            // The idle watchdog.
            group.addTask { [idleTimeout = configuration.idleTimeout] in
                while !Task.isCancelled {
                    let idleSince = lastActivity.withLock { $0 }
                    let deadline = idleSince + idleTimeout
                    if ContinuousClock.now >= deadline { return RelayClose.idle }
                    try? await Task.sleep(until: deadline)
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        // Tell the home the stream ended, unless the home ended it (then it is no longer listed).
        if home.forgetStream(stream) {
            try? await home.hub.write(.binary(RelayFrame.close(stream: stream).encoded()))
        }
        if let (code, reason) = ending {
            try? await outbound.close(code, reason: reason)
        }
    }
}

/// A value several tasks read and write under a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    /// Runs `body` with the value locked.
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}
