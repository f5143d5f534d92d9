import HAPController
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Serves each connection as a task that prefers the connection's own event loop as its executor.
///
/// Hummingbird handles a connection in a task on Swift's global executor, so every request would cross threads
/// twice (loop → pool for the request, pool → loop for the answer) and every event sent on a WebSocket once more.
/// With the loop as the task's executor preference, the handler, the hub's actor and the store run where the
/// bytes arrived and the answer is written without a hop; only calls to an accessory on another loop cross.
struct LoopBoundChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// How connections are guarded: the table they are counted in and the time allowed for a first request head.
    struct Guarding: Sendable {
        /// The open connections, kept under their cap.
        let connections: OpenConnections
        /// How long a new connection may take to send its first complete request head.
        let headTimeout: TimeAmount
        /// How long a request body may take to arrive after its head.
        let bodyTimeout: TimeAmount
        /// The kernel's send buffer per connection (`SO_SNDBUF`), when set.
        var sendBufferSize: Int? = nil
        /// Whether requests arrive over TLS: the scheme of the page's own origin, which a cookie upgrade must send.
        var servesTLS = false
        /// Where connections of the TLS listener are recorded, so a request knows it came over TLS.
        var tlsConnections: ChannelSet? = nil
    }

    let inner: Inner
    /// Guards each connection (a `ConnectionGuard` after the HTTP decoder) when set.
    var guarding: Guarding? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let guarding else { return inner.setup(channel: channel, logger: logger) }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let record = ConnectionRecord(channel: channel)
            if let size = guarding.sendBufferSize {
                try channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
            }
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(
                ConnectionGuard(
                    record: record,
                    headTimeout: guarding.headTimeout,
                    bodyTimeout: guarding.bodyTimeout,
                    servesTLS: guarding.servesTLS,
                    logger: logger
                ),
                position: .after(decoder)
            )
            guarding.tlsConnections?.insert(channel)
            guarding.connections.admit(record)
            channel.closeFuture.whenComplete { _ in guarding.connections.remove(record) }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let record = guarding?.connections.record(for: value.channel)
        var logger = logger
        if guarding != nil {
            logger.handler = RefusedConnectionLogFilter(inner: logger.handler)
        }
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await CurrentConnection.$channel.withValue(value.channel) {
                await CurrentConnection.$record.withValue(record) {
                    await inner.handle(value: value, logger: logger)
                }
            }
        }
    }
}

/// Logs a connection that was refused or shed before its first request (the guard closed it) at debug level,
/// where Hummingbird's WebSocket channel logs "Error handling upgrade result" as an error for each.
struct RefusedConnectionLogFilter: LogHandler {
    /// The handler that logs.
    var inner: any LogHandler

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, event.message.description == "Error handling upgrade result" {
            event.level = .debug
            guard inner.logLevel <= .debug else { return }
        }
        inner.log(event: event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }
}

/// The connection the current task serves, for code that must act on it directly (an event session closing a
/// reader that stopped reading).
enum CurrentConnection {
    /// The channel of the connection being served, set for the whole of its handling.
    @TaskLocal static var channel: (any Channel)?
    /// The connection's record in the connection table, which learns when the connection authenticates.
    @TaskLocal static var record: ConnectionRecord?
}

/// A set of open channels: a channel leaves it when it closes.
final class ChannelSet: Sendable {
    private let members = NIOLockedValueBox<Set<ObjectIdentifier>>([])

    /// An empty set.
    init() {}

    /// Adds `channel` until it closes.
    func insert(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        members.withLockedValue { _ = $0.insert(key) }
        channel.closeFuture.whenComplete { [members] _ in members.withLockedValue { _ = $0.remove(key) } }
    }

    /// Whether `channel` is in the set.
    func contains(_ channel: any Channel) -> Bool {
        members.withLockedValue { $0.contains(ObjectIdentifier(channel)) }
    }
}
