import Foundation
import HAP
import HomeGraph
import Hub
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The request context of the event WebSocket's upgrade: Hummingbird's, and the connection's channel.
public struct HubWebSocketContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The WebSocket handler.
    public let webSocket: WebSocketHandlerReference<Self>
    /// The connection's channel.
    public let channel: any Channel

    /// A context for a new upgrade request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
    }
}

/// The hub's API: HTTP/1.1 with JSON and a WebSocket of change events, described by `docs/api/openapi.yaml`.
///
/// Every request carries a bearer token (or a browser's session cookie); the server finds the account and asks the
/// hub with `HubCaller.user(account id)`, so rights are checked in the hub. The same port serves the web page.
public struct HubServer: Sendable {
    /// Where the server listens and how long invites last.
    public struct Configuration: Sendable {
        /// The address to listen on; loopback unless asked otherwise.
        public var host: String
        /// The TCP port; 0 picks a free one.
        public var port: Int
        /// How long an invite code works.
        public var inviteLifetime: TimeInterval
        /// How long a new event connection holds events back waiting for a `resume` message.
        public var resumeGrace: Duration
        /// How long a new connection may take to send its first complete request head before it is closed (408).
        public var headTimeout: Duration
        /// How long a request's body may take to arrive after its head before the connection is closed.
        public var bodyTimeout: Duration = .seconds(30)
        /// How long a kept-alive connection may sit idle between requests (or inside a later request head).
        public var idleTimeout: Duration
        /// The most connections open at once; `nil` derives it from the open-file limit when the server starts.
        public var maximumConnections: Int?
        /// How many events an event connection may have waiting for a client that does not read before it is
        /// closed (the client resumes by sequence when it reconnects).
        public var maximumQueuedEvents: Int
        /// The kernel's send buffer per connection in bytes (`SO_SNDBUF`); `nil` leaves it to the kernel's
        /// autotuning, which lets a client that stops reading pin up to `tcp_wmem`'s maximum (4 MB here).
        public var socketSendBufferSize: Int?
        /// Whether requests reach the server over TLS (a TLS channel, or a proxy on this host that ends TLS): the
        /// session cookie is `Secure` then, and never otherwise; the page's origin is `https://` then.
        public var servesTLS: Bool
        /// How long a browser session lasts after sign-in.
        public var sessionLifetime: TimeInterval
        /// The secure listener's address (docs/remote-access.md); `nil` serves none.
        public var secureHost: String? = nil
        /// The secure listener's TCP port; 0 picks a free one.
        public var securePort: Int = 7879
        /// The address of the web app over TLS; `nil` serves none.
        ///
        /// A LAN address: plain HTTP with tokens stays on loopback. Needs `webCertificate`.
        public var tlsHost: String? = nil
        /// The TLS listener's TCP port; 0 picks a free one.
        public var tlsPort: Int = 7443
        /// The certificate of the TLS listener: the hub's own (`WebCertificate.loadOrCreate`) or the owner's.
        public var webCertificate: WebCertificate? = nil
        /// The relay the hub keeps its link to (`hearthd --relay`), told to clients in `GET /v1/hub/identity`.
        public var relayURL: String? = nil
        /// The PEM certificates the hub trusts its relay with (`hearthd --relay-ca`), told to clients with the relay.
        public var relayCertificates: String? = nil
        /// How long a connection to the secure listener may take to finish pair-verify before it is closed.
        public var handshakeTimeout: Duration = .seconds(10)
        /// Wrong pairing codes after which pair-setup answers MaxTries until the owner resets the count (HAP's 100).
        public var maximumFailedPairingAttempts = 100
        /// How long a code from `POST /v1/account/pairing-codes` works.
        public var pairingCodeLifetime: TimeInterval = 3600
        /// How long a link from `POST /v1/account/sign-in-links` works.
        public var signInLinkLifetime: TimeInterval = 600
        /// Wrong passwords an account may be tried with in `passwordWindow` before sign-in answers 429.
        public var passwordTries = 5
        /// The window `passwordTries` counts over.
        public var passwordWindow: TimeInterval = 60

        /// Makes a configuration; by default `127.0.0.1:7878`, invites for 7 days, 10 s for a first request head,
        /// 75 s idle, connections capped below the open-file limit, 4,096 queued events per event connection,
        /// plain HTTP, browser sessions for 30 days.
        public init(
            host: String = "127.0.0.1",
            port: Int = 7878,
            inviteLifetime: TimeInterval = 7 * 24 * 3600,
            resumeGrace: Duration = .seconds(1),
            headTimeout: Duration = .seconds(10),
            idleTimeout: Duration = .seconds(75),
            maximumConnections: Int? = nil,
            maximumQueuedEvents: Int = 4096,
            socketSendBufferSize: Int? = nil,
            servesTLS: Bool = false,
            sessionLifetime: TimeInterval = 30 * 24 * 3600
        ) {
            self.host = host
            self.port = port
            self.inviteLifetime = inviteLifetime
            self.resumeGrace = resumeGrace
            self.headTimeout = headTimeout
            self.idleTimeout = idleTimeout
            self.maximumConnections = maximumConnections
            self.maximumQueuedEvents = maximumQueuedEvents
            self.socketSendBufferSize = socketSendBufferSize
            self.servesTLS = servesTLS
            self.sessionLifetime = sessionLifetime
        }
    }

    /// The hub served.
    public let hub: Hub
    /// The accounts and invites.
    public let credentials: CredentialStore
    /// The open event connections, for revocation.
    public let connections: ConnectionRegistry
    /// The hub's long-term identity for the secure listener; `nil` when it serves none.
    public let identity: HubIdentity?
    /// `identity` as HAP's pair-verify takes it, made once (its routing id is a hash of the key).
    let accessoryIdentity: AccessoryIdentity?
    /// The open connections of the secure listener, for revocation.
    public let secureSessions = SecureSessions()
    /// The connections that arrived over the TLS listener.
    let tlsConnections = ChannelSet()
    /// The TLS listener's URL once it listens (`https://host:port/`).
    private let tlsURL = NIOLockedValueBox<String?>(nil)
    /// The event texts sent on event connections, each encoded once.
    let eventFrames = EventFrames()
    /// Where to listen.
    public let configuration: Configuration
    let logger: Logger

    /// Serves `hub` with the accounts in `credentials`.
    public init(
        hub: Hub,
        credentials: CredentialStore,
        configuration: Configuration = Configuration(),
        identity: HubIdentity? = nil,
        logger: Logger = Logger(label: "hearth.api")
    ) {
        self.hub = hub
        self.credentials = credentials
        self.connections = ConnectionRegistry()
        self.identity = identity
        self.accessoryIdentity = identity?.accessoryIdentity
        self.configuration = configuration
        self.logger = logger
    }

    /// The HTTP router with every route of the API.
    public func makeRouter() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: JSONCompressionMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: WebPageMiddleware())
        router.add(middleware: DurableAnswerMiddleware(hub: hub))
        registerRoutes(on: router)
        return router
    }

    /// The router that accepts WebSocket upgrades (`GET /v1/events`).
    public func makeWebSocketRouter() -> Router<HubWebSocketContext> {
        let router = Router(context: HubWebSocketContext.self)
        let server = self
        router.ws(
            "/v1/events",
            shouldUpgrade: { request, context in
                // The upgrade is decided outside the connection's task: its secure session is found by channel.
                let secure = server.secureSessions.connection(for: context.channel)
                let principal = await CurrentSecureConnection.$connection.withValue(secure) {
                    await server.eventPrincipal(of: request, channel: context.channel)
                }
                // A refusal is answered 401 with the JSON error body, not Hummingbird's bare 400.
                await UpgradeRefusalAnswer.settle(on: context.channel, isUnauthorized: principal == nil)
                guard principal != nil else { return .dontUpgrade }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let secure = server.secureSessions.connection(for: context.requestContext.channel)
                let found = await CurrentSecureConnection.$connection.withValue(secure) {
                    await server.eventPrincipal(of: context.request, channel: context.requestContext.channel)
                }
                guard let principal = found else { return }
                let session = EventSession(server: server, principal: principal)
                await session.run(inbound: inbound, outbound: outbound)
            }
        )
        return router
    }

    /// The application: HTTP with WebSocket upgrade on the configured address.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> Application<RouterResponder<HubRequestContext>> {
        makeApplication(.plain, onServerRunning: onServerRunning)
    }

    /// The secure listener (docs/remote-access.md): the same API inside verified HAP sessions on
    /// `secureHost:securePort`; needs `identity` and `secureHost`.
    public func makeSecureApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> Application<RouterResponder<HubRequestContext>> {
        makeApplication(.secure, onServerRunning: onServerRunning)
    }

    /// The TLS listener (docs/remote-access.md): the web app and the API over TLS on `tlsHost:tlsPort`.
    ///
    /// It serves with `webCertificate`; the session cookie is `Secure` there. Throws when `tlsHost` or
    /// `webCertificate` is missing.
    public func makeTLSApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> Application<RouterResponder<HubRequestContext>> {
        guard let certificate = configuration.webCertificate, configuration.tlsHost != nil else {
            throw APIError(
                .internalServerError,
                code: "noTLS",
                message: "the TLS listener needs an address and a certificate"
            )
        }
        return makeApplication(.tls(certificate.tlsConfiguration)) { [tlsURL] channel in
            if let address = channel.localAddress, let bound = address.ipAddress, let port = address.port {
                let host = Self.reachableHost(bound: bound)
                tlsURL.withLockedValue { $0 = "https://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }
            }
            await onServerRunning(channel)
        }
    }

    /// The machine's interface addresses that are not link-local (loopback included), as text.
    ///
    /// They are what a wildcard listener is reachable at. `devices`: the machine's, unless given.
    public static func interfaceAddresses(devices: [NIONetworkDevice]? = nil) -> [String] {
        (devices ?? (try? System.enumerateDevices()) ?? []).compactMap { $0.address?.ipAddress }
            .filter { !$0.lowercased().hasPrefix("fe80") }
    }

    /// The address a browser elsewhere reaches a listener bound to `bound` at: for a wildcard (`0.0.0.0`, `::`),
    /// the first interface address that is neither loopback nor link-local (`devices`: the machine's), else itself.
    public static func reachableHost(bound: String, devices: [NIONetworkDevice]? = nil) -> String {
        guard bound == "0.0.0.0" || bound == "::" else { return bound }
        let usable = interfaceAddresses(devices: devices).filter { !$0.hasPrefix("127.") && $0 != "::1" }
        return usable.first { !$0.contains(":") } ?? usable.first ?? (bound == "::" ? "::1" : "127.0.0.1")
    }

    /// The web app's URL over TLS, once the TLS listener listens.
    public var webURL: String? { tlsURL.withLockedValue { $0 } }

    /// Which of the hub's listeners an application serves.
    private enum Listener {
        /// Plain HTTP (loopback).
        case plain
        /// HAP sessions (paired clients).
        case secure
        /// TLS with this configuration (the web app on a LAN address).
        case tls(TLSConfiguration)

        /// The TLS configuration of the TLS listener; `nil` for the others.
        var tls: TLSConfiguration? {
            if case .tls(let configuration) = self { configuration } else { nil }
        }

        /// Whether this is the secure listener.
        var isSecure: Bool {
            if case .secure = self { true } else { false }
        }
    }

    private func makeApplication(
        _ listener: Listener,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> Application<RouterResponder<HubRequestContext>> {
        let isTLS = listener.tls != nil
        let guarding = LoopBoundChannel<HTTP1WebSocketUpgradeChannel>.Guarding(
            connections: OpenConnections(
                limit: configuration.maximumConnections ?? OpenConnections.defaultLimit(),
                logger: logger
            ),
            headTimeout: TimeAmount(configuration.headTimeout),
            bodyTimeout: TimeAmount(configuration.bodyTimeout),
            sendBufferSize: configuration.socketSendBufferSize,
            servesTLS: configuration.servesTLS || isTLS,
            tlsConnections: isTLS ? tlsConnections : nil
        )
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: TimeAmount(configuration.idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: ConnectionLimits.maximumHeaderFieldSize,
                maxHeaderListSize: ConnectionLimits.maximumHeadSize,
                maxHeaderFieldCount: ConnectionLimits.maximumHeaderCount
            )
        )
        let address: BindAddress
        switch listener {
        case .plain: address = .hostname(configuration.host, port: configuration.port)
        case .secure: address = .hostname(configuration.secureHost ?? "127.0.0.1", port: configuration.securePort)
        case .tls: address = .hostname(configuration.tlsHost ?? "127.0.0.1", port: configuration.tlsPort)
        }
        let (tls, isSecure) = (listener.tls, listener.isSecure)
        return Application(
            router: makeRouter(),
            server: HTTPServerBuilder { [webSocketResponder = makeWebSocketRouter().buildResponder(), self] responder in
                let channel = SecureChannel(
                    inner: LoopBoundChannel(
                        inner: HTTP1WebSocketUpgradeChannel(
                            responder: responder,
                            webSocketResponder: webSocketResponder,
                            configuration: .init(http1: http1, ws: .init(maxFrameSize: EventSession.maximumFrameSize))
                        ),
                        guarding: guarding
                    ),
                    server: self,
                    isSecure: isSecure
                )
                guard let tls else { return channel }
                return try TLSChannel(channel, tlsConfiguration: tls)
            },
            configuration: .init(address: address, serverName: "hearthd"),
            onServerRunning: onServerRunning,
            logger: logger.keepingRequestIDs
        )
    }

    /// Whether requests on `channel` arrive over TLS: the TLS listener's, or any when `configuration.servesTLS`
    /// says a proxy on this host ends TLS in front of the server.
    func servesTLS(on channel: (any Channel)?) -> Bool {
        configuration.servesTLS || channel.map(tlsConnections.contains) ?? false
    }

    /// ``servesTLS(on:)`` for the request being served.
    var servesTLSNow: Bool { servesTLS(on: CurrentConnection.channel) }

    /// The caller of an event WebSocket upgrade: its bearer token's, or without one its session cookie's when the
    /// upgrade comes from the hub's own page (`SessionCookie.upgradeRefusal`); `nil` when it is refused.
    func eventPrincipal(of request: Request, channel: any Channel) async -> Principal? {
        if CurrentSecureConnection.connection != nil || request.headers[.authorization] != nil {
            return await principal(of: request)
        }
        guard let secret = SessionCookie.secret(in: request) else { return nil }
        let refusal = SessionCookie.upgradeRefusal(
            authorization: nil,
            cookieHeaders: request.headers[values: .cookie],
            origins: request.headers[values: .origin],
            authority: request.head.authority,
            servesTLS: servesTLS(on: channel)
        )
        guard refusal == nil, let principal = await credentials.authenticate(session: secret) else { return nil }
        CurrentConnection.record?.markAuthenticated()
        return principal
    }

    /// The account and token of a request's bearer token, or `nil`; on the secure listener the verified session's
    /// account (its pairing's id as token id) whatever `Authorization` says, which is ignored there.
    func principal(of request: Request) async -> Principal? {
        if let secure = CurrentSecureConnection.connection {
            let principal = secure.principal
            if principal != nil { CurrentConnection.record?.markAuthenticated() }
            return principal
        }
        guard let header = request.headers[.authorization] else { return nil }
        let prefix = "Bearer "
        guard header.hasPrefix(prefix) else { return nil }
        let token = header.dropFirst(prefix.count).trimmingWhitespace()
        guard !token.isEmpty else { return nil }
        let principal = await credentials.authenticate(token: token)
        // A connection that has shown a valid token is shed only after every anonymous one.
        if principal != nil { CurrentConnection.record?.markAuthenticated() }
        return principal
    }
}
