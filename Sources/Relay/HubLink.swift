import ByteStreams
import Crypto
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// The hub's end of the relay: one outbound WebSocket to the relay, proven with the hub's long-term key.
///
/// On it, every client stream becomes a plain TCP connection to a local target (the hub's secure listener).
/// Reconnects with backoff. It never reads the bytes it splices.
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
        /// Payloads from the relay queued toward one stream's target before that stream is ended as too slow.
        public var streamQueueLength: Int = 256
        /// How long one attempt may take until the relay accepts the link; then it is given up and retried.
        public var acceptTimeout: Duration = .seconds(30)
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
            let ending = await attempt(accepted: accepted)
            logger.info("relay link ended", metadata: ["how": "\(ending)"])
            connected.withLock { $0 = false }
            if Task.isCancelled { return }
            failures = accepted.withLock { $0 } ? 0 : failures + 1
            try? await Task.sleep(for: backoff(afterFailures: failures))
        }
    }

    /// One connection attempt, given up when the relay has not accepted it within ``Configuration/acceptTimeout``:
    /// a WebSocket upgrade that never completes must not keep the home offline (``waitAbandoning(startWithin:_:)``).
    private func attempt(accepted: Shared<Bool>) async -> String {
        let waited = await waitAbandoning(startWithin: configuration.acceptTimeout) { started in
            do {
                let close = try await self.connectOnce {
                    accepted.withLock { $0 = true }
                    started()
                }
                return "closed (\(close.map { "\($0.closeCode) \($0.reason ?? "")" } ?? "no close frame"))"
            } catch {
                return "failed (\(error))"
            }
        }
        switch waited {
        case .finished(let how): return how
        case .timedOut: return "not accepted within \(configuration.acceptTimeout)"
        case .cancelled: return "cancelled"
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
    ///
    /// The loop never waits for one stream: data goes to the stream's own queue, so a slow target holds up only
    /// its stream (whose queue, when full, ends it) and the link keeps reading, pings and pongs included.
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
                    guard let inbox = streams.add(stream, queueLength: configuration.streamQueueLength) else {
                        continue
                    }
                    group.addTask {
                        await self.splice(stream: stream, inbox: inbox, streams: streams, outbound: outbound)
                    }
                case .data(let stream, let payload):
                    if streams.deliver(payload, to: stream) == .overflowed {
                        logger.debug("stream's target reads too slowly", metadata: ["stream": "\(stream)"])
                        try await outbound.write(.binary(RelayFrame.close(stream: stream).encoded()))
                    }
                case .close(let stream):
                    streams.remove(stream)
                case .challenge, .proof, .accepted:
                    continue
                }
            }
        }
    }

    /// One stream: connects to the target, then carries the stream's queue to it and what it sends back to the
    /// relay, until either side ends.
    private func splice(
        stream: UInt32,
        inbox: AsyncStream<ByteBuffer>,
        streams: TargetStreams,
        outbound: WebSocketOutboundWriter
    ) async {
        let maximumPayload = configuration.maximumPayload
        do {
            let target = try await ByteConnection.connect(
                host: configuration.targetHost,
                port: configuration.targetPort,
                timeout: .seconds(5)
            )
            defer { target.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The relay's bytes to the target; the queue finishes when the stream is closed.
                group.addTask {
                    for await payload in inbox { try await target.write(payload) }
                }
                // The target's bytes to the relay.
                group.addTask {
                    for await var chunk in target.received {
                        while chunk.readableBytes > 0,
                            let piece = chunk.readSlice(length: min(chunk.readableBytes, maximumPayload))
                        {
                            try await outbound.write(.binary(RelayFrame.data(stream: stream, payload: piece).encoded()))
                        }
                    }
                }
                // Either way ending ends the stream.
                _ = try await group.next()
                group.cancelAll()
            }
        } catch {
            logger.debug("stream to the target ended", metadata: ["stream": "\(stream)", "error": "\(error)"])
        }
        if streams.remove(stream) {
            try? await outbound.write(.binary(RelayFrame.close(stream: stream).encoded()))
        }
    }
}

/// The open streams of one link, each with the queue of bytes the relay sent toward its target.
final class TargetStreams: Sendable {
    private let streams = Mutex<[UInt32: AsyncStream<ByteBuffer>.Continuation]>([:])

    /// What became of bytes given to ``deliver(_:to:)``.
    enum Delivery: Equatable {
        /// Queued for the target.
        case queued
        /// The stream is not open (closed already, or never opened): dropped.
        case unknown
        /// The queue was full: the stream is ended, and the relay must be told.
        case overflowed
    }

    /// Registers stream `number` with a queue of at most `queueLength` payloads; the queue, or `nil` when the
    /// stream is already open.
    func add(_ number: UInt32, queueLength: Int) -> AsyncStream<ByteBuffer>? {
        let (inbox, continuation) = AsyncStream.makeStream(
            of: ByteBuffer.self,
            bufferingPolicy: .bufferingOldest(queueLength)
        )
        let added = streams.withLock { streams in
            guard streams[number] == nil else { return false }
            streams[number] = continuation
            return true
        }
        return added ? inbox : nil
    }

    /// Queues `payload` for stream `number`'s target.
    func deliver(_ payload: ByteBuffer, to number: UInt32) -> Delivery {
        streams.withLock { streams in
            guard let continuation = streams[number] else { return .unknown }
            if case .enqueued = continuation.yield(payload) { return .queued }
            streams[number] = nil
            continuation.finish()
            return .overflowed
        }
    }

    /// Ends stream `number`: its queue finishes, which closes its connection; whether it was open.
    @discardableResult
    func remove(_ number: UInt32) -> Bool {
        guard let continuation = streams.withLock({ $0.removeValue(forKey: number) }) else { return false }
        continuation.finish()
        return true
    }

    /// Ends every stream (the link went away).
    func closeAll() {
        let all = streams.withLock { streams in
            defer { streams = [:] }
            return streams
        }
        for continuation in all.values { continuation.finish() }
    }
}
