import Crypto
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// The hub's end of the relay: one outbound WebSocket to the relay, proven with the hub's long-term key, on which
/// every client stream becomes a plain TCP connection to a local target (the hub's secure listener). Reconnects
/// with backoff. It never reads the bytes it splices.
public final class HubLink: Sendable {
    /// Where the relay and the target are, and how to reconnect.
    public struct Configuration: Sendable {
        /// The relay's base URL, `ws://host:port` or `wss://host:port`.
        public var relayURL: String
        /// The hub's long-term key; its public key names the home (``RouteID``).
        public var identity: Curve25519.Signing.PrivateKey
        /// The local address each stream is connected to.
        public var targetHost: String
        /// The local port each stream is connected to.
        public var targetPort: Int
        /// The largest payload the relay accepts in one message (its `maximumPayload`).
        public var maximumPayload: Int = 16384
        /// The first wait before reconnecting; doubled per failure up to ``maximumBackoff``.
        public var initialBackoff: Duration = .milliseconds(200)
        /// The longest wait before reconnecting.
        public var maximumBackoff: Duration = .seconds(30)
        /// How often the link pings the relay; a relay that does not answer in that time is left.
        public var pingInterval: Duration = .seconds(30)
        /// TLS settings for a `wss://` relay (`nil`: the system's defaults).
        public var tls: TLSConfiguration?

        /// A configuration with the default limits.
        public init(
            relayURL: String,
            identity: Curve25519.Signing.PrivateKey,
            targetHost: String,
            targetPort: Int
        ) {
            self.relayURL = relayURL
            self.identity = identity
            self.targetHost = targetHost
            self.targetPort = targetPort
        }
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    /// The home's routing id.
    public let route: RouteID
    private let logger: Logger
    private let connected = Mutex(false)

    /// A link with `configuration`; call ``run()`` to connect.
    public init(configuration: Configuration, logger: Logger = Logger(label: "hearth.relay.hub")) {
        self.configuration = configuration
        self.route = RouteID(publicKey: configuration.identity.publicKey.rawRepresentation)
        self.logger = logger
    }

    /// Whether the relay has accepted the link and it is up now.
    public var isConnected: Bool { connected.withLock { $0 } }

    /// Keeps the link up until the task is cancelled, reconnecting with backoff.
    public func run() async {
        var failures = 0
        while !Task.isCancelled {
            let accepted = Shared(false)
            do {
                let close = try await connectOnce { accepted.withLock { $0 = true } }
                logger.info(
                    "relay link closed",
                    metadata: ["code": "\(String(describing: close?.closeCode))", "reason": "\(close?.reason ?? "")"]
                )
            } catch {
                logger.info("relay link failed", metadata: ["error": "\(error)"])
            }
            connected.withLock { $0 = false }
            if Task.isCancelled { return }
            failures = accepted.withLock { $0 } ? 0 : failures + 1
            try? await Task.sleep(for: backoff(afterFailures: failures))
        }
    }

    /// The wait before the next attempt: the initial backoff doubled per failure, capped, with ±20 % jitter.
    private func backoff(afterFailures failures: Int) -> Duration {
        let base = configuration.initialBackoff * Double(1 << min(failures, 16))
        return min(base, configuration.maximumBackoff) * Double.random(in: 0.8...1.2)
    }

    /// One connection: the proof, then streams until the relay or the network ends it.
    private func connectOnce(onAccepted: @escaping @Sendable () -> Void) async throws -> WebSocketCloseFrame? {
        let maximumMessage = configuration.maximumPayload + RelayFrame.dataHeaderLength
        return try await WebSocketClient.connect(
            url: "\(configuration.relayURL)/v1/hub?route=\(route)",
            configuration: .init(
                maxFrameSize: maximumMessage,
                autoPing: .enabled(timePeriod: configuration.pingInterval)
            ),
            tlsConfiguration: configuration.tls,
            logger: logger
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: maximumMessage).makeAsyncIterator()
            guard case .binary(let first)? = try await messages.next(),
                case .challenge(let challenge)? = RelayFrame(decoding: first)
            else { return }
            let answer = try HubProof.answer(challenge: challenge, identity: self.configuration.identity)
            try await outbound.write(
                .binary(RelayFrame.proof(publicKey: answer.publicKey, signature: answer.signature).encoded())
            )
            guard case .binary(let second)? = try await messages.next(), RelayFrame(decoding: second) == .accepted
            else { return }
            onAccepted()
            self.connected.withLock { $0 = true }
            self.logger.info("relay link up", metadata: ["route": "\(self.route)"])
            try await self.serveStreams(messages: &messages, outbound: outbound)
        }
    }

    /// The relay's frames: opens, data and closes of streams, each stream spliced to a TCP connection.
    private func serveStreams(
        messages: inout WebSocketInboundMessageStream.AsyncIterator,
        outbound: WebSocketOutboundWriter
    ) async throws {
        let streams = TargetStreams()
        defer { streams.closeAll() }
        try await withThrowingDiscardingTaskGroup { group in
            defer { group.cancelAll() }
            while let message = try await messages.next() {
                guard case .binary(let bytes) = message, let frame = RelayFrame(decoding: bytes) else { continue }
                switch frame {
                case .open(let stream):
                    let ready = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: TargetConnection.self)
                    guard streams.add(stream, ready: ready.futureResult) else {
                        ready.fail(ChannelError.alreadyClosed)
                        continue
                    }
                    group.addTask {
                        await self.splice(stream: stream, ready: ready, streams: streams, outbound: outbound)
                    }
                case .data(let stream, let payload):
                    guard let ready = streams.connection(stream) else { continue }
                    do {
                        // Waiting for the write is the backpressure: the relay's link waits while the target does.
                        try await ready.get().writer.write(payload)
                    } catch {
                        if streams.remove(stream) != nil {
                            try await outbound.write(.binary(RelayFrame.close(stream: stream).encoded()))
                        }
                    }
                case .close(let stream):
                    streams.remove(stream)?.whenSuccess { $0.channel.close(promise: nil) }
                case .challenge, .proof, .accepted:
                    continue
                }
            }
        }
    }

    /// One stream: connects to the target, then forwards what the target sends until either side ends it.
    private func splice(
        stream: UInt32,
        ready: EventLoopPromise<TargetConnection>,
        streams: TargetStreams,
        outbound: WebSocketOutboundWriter
    ) async {
        let maximumPayload = configuration.maximumPayload
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: configuration.targetHost, port: configuration.targetPort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await channel.executeThenClose { inbound, writer in
                ready.succeed(TargetConnection(channel: channel.channel, writer: writer))
                for try await var chunk in inbound {
                    while chunk.readableBytes > 0,
                        let piece = chunk.readSlice(length: min(chunk.readableBytes, maximumPayload))
                    {
                        try await outbound.write(.binary(RelayFrame.data(stream: stream, payload: piece).encoded()))
                    }
                }
            }
        } catch {
            ready.fail(error)
            logger.debug("stream to the target ended", metadata: ["stream": "\(stream)", "error": "\(error)"])
        }
        if streams.remove(stream) != nil {
            try? await outbound.write(.binary(RelayFrame.close(stream: stream).encoded()))
        }
    }
}

/// A stream's TCP connection to the target: the channel (to close it) and its writer.
struct TargetConnection: Sendable {
    let channel: any Channel
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
}

/// The open streams of one link, each with its connection once made.
final class TargetStreams: Sendable {
    private let streams = Mutex<[UInt32: EventLoopFuture<TargetConnection>]>([:])

    /// Registers stream `number`; `false` when it is already open.
    func add(_ number: UInt32, ready: EventLoopFuture<TargetConnection>) -> Bool {
        streams.withLock { streams in
            guard streams[number] == nil else { return false }
            streams[number] = ready
            return true
        }
    }

    /// The connection of stream `number`, when open.
    func connection(_ number: UInt32) -> EventLoopFuture<TargetConnection>? { streams.withLock { $0[number] } }

    /// Forgets stream `number`; its connection, when it was open.
    func remove(_ number: UInt32) -> EventLoopFuture<TargetConnection>? {
        streams.withLock { $0.removeValue(forKey: number) }
    }

    /// Closes every stream's connection (the link went away).
    func closeAll() {
        let all = streams.withLock { streams in
            defer { streams = [:] }
            return streams
        }
        for ready in all.values { ready.whenSuccess { $0.channel.close(promise: nil) } }
    }
}
