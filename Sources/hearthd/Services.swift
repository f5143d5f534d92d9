import Foundation
import Hub
import HubServer
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import Relay
import ServiceLifecycle
import Synchronization

// hearthd's parts are services of one `ServiceGroup`, listed `[bridge, hub, API]`: they stop in the reverse order
// on SIGTERM or SIGINT (the API first, then the hub, which closes its store with a snapshot, then the bridge), and
/// when one fails the others still stop in that order.

/// The demo bridge as a service: serves from before the group runs until its graceful shutdown.
struct DemoBridgeService: Service, CustomStringConvertible {
    /// The name ServiceLifecycle logs (never the bridge's fields: they hold its setup code).
    var description: String { "demo bridge" }
    /// The bridge, already listening.
    let bridge: DemoBridge

    /// Waits for the graceful shutdown, then stops the bridge.
    func run() async {
        try? await gracefulShutdown()
        await bridge.stop()
    }
}

/// The hub as a service: starts the hub, does the work that must come before the API serves, opens `ready`, and
/// stops the hub on graceful shutdown (or at once, when starting failed).
struct HubService: Service, CustomStringConvertible {
    /// The name ServiceLifecycle logs.
    var description: String { "hub" }
    /// The hub, opened but not started.
    let hub: Hub
    /// Opened when the hub is ready to serve, or failed to start (one gate per listener).
    let ready: [ReadyGate]
    /// Work after the hub started and before the API serves (the demo bridge's pairing).
    let prepare: @Sendable (Hub) async throws -> Void

    /// Starts the hub and runs `prepare`, then waits for the graceful shutdown and stops the hub, failed or not.
    func run() async throws {
        let started: Result<Void, any Error>
        do {
            try await hub.start()
            try await prepare(hub)
            started = .success(())
        } catch {
            started = .failure(error)
        }
        for gate in ready { gate.open(ready: (try? started.get()) != nil) }
        if case .success = started { try? await gracefulShutdown() }
        await hub.stop()
        try started.get()
    }
}

/// The API as a service: serves once the hub is ready, until its graceful shutdown.
final class APIService: Service, CustomStringConvertible {
    /// The name ServiceLifecycle logs.
    var description: String { "API" }
    /// The API.
    let server: HubServer
    /// Opened by the hub's service.
    let ready: ReadyGate
    /// Called once the server listens.
    let onServerRunning: @Sendable (any Channel) async -> Void
    /// Whether the server has started listening: an I/O error before it is a failure to listen, one after is not.
    let serving = Mutex(false)
    /// Which listener this serves.
    let listener: Listener
    /// The hub's listeners (docs/remote-access.md).
    enum Listener {
        /// Plain HTTP on loopback.
        case plain
        /// The secure listener: paired clients in HAP sessions.
        case secure
        /// The web app and API over TLS on a LAN address.
        case tls
    }
    /// Whether a failure to listen is reported and the rest keeps serving (the demo's default secure listener).
    let isOptional: Bool

    init(
        server: HubServer,
        ready: ReadyGate,
        listener: Listener = .plain,
        isOptional: Bool = false,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) {
        self.server = server
        self.ready = ready
        self.listener = listener
        self.isOptional = isOptional
        self.onServerRunning = onServerRunning
    }

    /// Waits for the hub, then serves.
    ///
    /// A failure to bind becomes ``HearthdError/cannotListen(host:port:errno:)``. When the hub did not start, waits
    /// for the graceful shutdown the hub's failure brings.
    func run() async throws {
        guard await ready.wait() else {
            try? await gracefulShutdown()
            return
        }
        let running: @Sendable (any Channel) async -> Void = { channel in
            self.serving.withLock { $0 = true }
            await self.onServerRunning(channel)
        }
        let configuration = server.configuration
        let (host, port) =
            switch listener {
            case .plain: (configuration.host, configuration.port)
            case .secure: (configuration.secureHost ?? "", configuration.securePort)
            case .tls: (configuration.tlsHost ?? "", configuration.tlsPort)
            }
        do {
            let application =
                switch listener {
                case .plain: server.makeApplication(onServerRunning: running)
                case .secure: server.makeSecureApplication(onServerRunning: running)
                case .tls: try server.makeTLSApplication(onServerRunning: running)
                }
            try await application.run()
        } catch {
            if !serving.withLock({ $0 }), let systemError = HearthdError.systemError(in: error, depth: 3) {
                let failure = HearthdError.cannotListen(host: host, port: port, errno: systemError.errnoCode)
                guard isOptional else { throw failure }
                print(
                    "hearthd: serving without the \(listener == .tls ? "TLS" : "secure") listener: \(failure.description)"
                )
                try? await gracefulShutdown()
                return
            }
            throw error
        }
    }
}

/// A one-time signal from the hub's service to the API's: whether the hub is ready.
final class ReadyGate: Sendable {
    private let stream: AsyncStream<Bool>
    private let continuation: AsyncStream<Bool>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Says whether the hub is ready.
    func open(ready: Bool) {
        continuation.yield(ready)
        continuation.finish()
    }

    /// Whether the hub is ready, once it is known; `false` when the graceful shutdown comes first.
    func wait() async -> Bool {
        await cancelWhenGracefulShutdown {
            for await ready in self.stream { return ready }
            return false
        }
    }
}

/// The hub's link to its relay (`--relay`) as a service: starts once the secure listener serves (its address is the
/// link's target), keeps the link up with backoff until the graceful shutdown.
final class RelayLinkService: Service, CustomStringConvertible {
    /// The name ServiceLifecycle logs.
    var description: String { "relay link" }
    private let relayURL: String
    private let identity: HubIdentity
    /// How the relay is trusted over `wss://` when not by the system's authorities (`--relay-ca`).
    private let tls: TLSConfiguration?
    private let logger: Logger
    private let target: AsyncStream<(host: String, port: Int)>
    private let continuation: AsyncStream<(host: String, port: Int)>.Continuation

    init(relayURL: String, identity: HubIdentity, tls: TLSConfiguration? = nil, logger: Logger) {
        self.relayURL = relayURL
        self.identity = identity
        self.tls = tls
        self.logger = logger
        (target, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Says where the secure listener serves; an unspecified address is reached on loopback.
    func start(targetHost: String, targetPort: Int) {
        let host = ["0.0.0.0", "::", "[::]"].contains(targetHost) ? "127.0.0.1" : targetHost
        continuation.yield((host, targetPort))
        continuation.finish()
    }

    /// Waits for the secure listener, then runs the link until the graceful shutdown.
    func run() async {
        let link: HubLink? = await cancelWhenGracefulShutdown {
            for await (host, port) in self.target {
                var configuration = HubLink.Configuration(
                    relayURL: self.relayURL,
                    identity: self.identity.signingKey,
                    targetHost: host,
                    targetPort: port
                )
                configuration.tls = self.tls
                return HubLink(configuration: configuration, logger: self.logger)
            }
            return nil
        }
        guard let link else { return }
        print("hearthd: relay link to \(relayURL) for routing id \(link.route) (reconnects by itself)")
        fflush(nil)
        await cancelWhenGracefulShutdown { await link.run() }
    }
}
