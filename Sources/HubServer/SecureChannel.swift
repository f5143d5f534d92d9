import Foundation
import HAP
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// One connection to the secure listener: its channel and, once pair-verify has succeeded, the account and
/// pairing it acts as.
final class SecureConnection: Sendable {
    /// The connection's channel.
    let channel: any Channel
    private let verified = NIOLockedValueBox<(principal: Principal, pairingID: UUID)?>(nil)

    /// Records a connection not verified yet.
    init(channel: any Channel) { self.channel = channel }

    /// The caller of every request on the connection: the pairing's account, with the pairing's id as token id;
    /// `nil` before pair-verify has succeeded.
    var principal: Principal? { verified.withLockedValue { $0?.principal } }

    /// The pairing the connection was verified with.
    var pairingID: UUID? { verified.withLockedValue { $0?.pairingID } }

    /// Marks the connection verified as `pairing`.
    func verify(as pairing: StoredPairing) {
        verified.withLockedValue {
            $0 = (Principal(userID: pairing.accountID, tokenID: pairing.id), pairing.id)
        }
    }
}

/// The open connections of the secure listener, so removing a pairing or a user closes theirs at once.
public final class SecureSessions: Sendable {
    private let connections = NIOLockedValueBox<[ObjectIdentifier: SecureConnection]>([:])

    /// An empty table.
    public init() {}

    /// Records a new connection until it closes.
    func admit(_ connection: SecureConnection) {
        connections.withLockedValue { $0[ObjectIdentifier(connection.channel)] = connection }
        connection.channel.closeFuture.whenComplete { [connections] _ in
            connections.withLockedValue { $0[ObjectIdentifier(connection.channel)] = nil }
        }
    }

    /// The record of a connection's channel.
    func connection(for channel: any Channel) -> SecureConnection? {
        connections.withLockedValue { $0[ObjectIdentifier(channel)] }
    }

    /// How many verified sessions are open.
    public var verifiedCount: Int { connections.withLockedValue { $0.values.filter { $0.principal != nil }.count } }

    /// Closes every verified session of `accountID`.
    public func close(account accountID: UUID) {
        close { $0.principal?.userID == accountID }
    }

    /// Closes every session verified with `pairingID`.
    public func close(pairing pairingID: UUID) {
        close { $0.pairingID == pairingID }
    }

    private func close(where matches: (SecureConnection) -> Bool) {
        let closing = connections.withLockedValue { $0.values.filter(matches) }
        for connection in closing { connection.channel.close(promise: nil) }
    }
}

/// The connection the current task serves on the secure listener (`nil` on the plain one).
enum CurrentSecureConnection {
    /// The secure connection of the request being served.
    @TaskLocal static var connection: SecureConnection?
}

/// Serves HAP over IP's secure session in front of the API (docs/remote-access.md): `POST /pair-setup` and
/// `POST /pair-verify` in clear, answered here; after pair-verify every byte both ways in `SessionCipher` frames,
/// with the inner channel's HTTP and WebSocket handlers running unchanged above.
struct SecureChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let server: HubServer
    /// Whether this is the secure listener; otherwise the inner channel is served as it is (loopback HTTP).
    let isSecure: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard isSecure else { return inner.setup(channel: channel, logger: logger) }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let connection = SecureConnection(channel: channel)
            server.secureSessions.admit(connection)
            try channel.pipeline.syncOperations.addHandler(
                SecureChannelHandler(
                    server: server,
                    connection: connection,
                    timeout: TimeAmount(server.configuration.handshakeTimeout),
                    logger: logger
                ),
                position: .first
            )
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard isSecure else { return await inner.handle(value: value, logger: logger) }
        let connection = server.secureSessions.connection(for: value.channel)
        await CurrentSecureConnection.$connection.withValue(connection) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

/// The front of a secure connection's pipeline: the handshake in clear, then the session cipher.
final class SecureChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The most bytes a handshake request may hold (head and body), and the most held while one is answered.
    static let maximumHandshakeBytes = 16 * 1024

    private let server: HubServer
    private let connection: SecureConnection
    /// Pair-setup, made when a client first asks for it (it runs off the event loop).
    private var setup: SecureHandshake?
    /// Pair-verify, answered here on the event loop.
    private var verify: SecureVerify
    private let timeout: TimeAmount
    private let logger: Logger
    private var parser = HTTPRequestParser(maximumHeadLength: 4096, maximumBodyLength: 8192)
    private var cipher: SessionCipher?
    private var isAnswering = false
    private var isClosing = false
    private var timer: Scheduled<Void>?

    init(server: HubServer, connection: SecureConnection, timeout: TimeAmount, logger: Logger) {
        self.server = server
        self.connection = connection
        self.verify = SecureVerify(
            identity: server.accessoryIdentity,
            directory: server.credentials.pairingDirectory,
            connection: connection
        )
        self.timeout = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard !isClosing else { return }
        if cipher != nil {
            do {
                let plaintext = try bytes.withUnsafeReadableBytes { pointer in
                    var out: [UInt8] = []
                    try cipher?.open(pointer, appendingTo: &out)
                    return out
                }
                guard !plaintext.isEmpty else { return }
                context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: plaintext)))
            } catch {
                // A frame that does not open (altered, reordered, replayed, truncated) ends the session.
                logger.debug("closing a secure session: a frame did not open")
                close(context)
            }
            return
        }
        parser.append(bytes.readableBytesView)
        guard parser.bufferedByteCount <= Self.maximumHandshakeBytes else { return close(context) }
        answerNext(context)
    }

    /// Answers the next complete handshake request, one at a time.
    private func answerNext(_ context: ChannelHandlerContext) {
        guard !isAnswering, !isClosing, cipher == nil else { return }
        let request: HTTPRequest
        do {
            guard let next = try parser.nextRequest() else { return }
            request = next
        } catch {
            return refuse(context, status: 400, message: "the request could not be read")
        }
        guard request.method == .post, request.path == "/pair-setup" || request.path == "/pair-verify" else {
            // Nothing but pairing before a verified session: no API data, and the connection ends.
            return refuse(
                context,
                status: 470,
                message: "this is the hub's secure listener: pair-verify first (docs/remote-access.md)"
            )
        }
        if request.path == "/pair-verify" {
            // The session's own cost stays on the event loop: no task, no actor, no thread switch.
            return finish(verify.answer(request), context: context)
        }
        isAnswering = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let handshake = setup ?? SecureHandshake(server: server)
        setup = handshake
        context.eventLoop.makeFutureWithTask {
            await handshake.answer(request)
        }.whenSuccess { outcome in
            let (handler, context) = bound.value
            handler.finish(outcome, context: context)
        }
    }

    private func finish(_ outcome: SecureHandshake.Outcome, context: ChannelHandlerContext) {
        isAnswering = false
        guard !isClosing else { return }
        let bytes = outcome.response.encoded()
        context.writeAndFlush(
            wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(bytes: bytes))),
            promise: nil
        )
        if outcome.close { return close(context) }
        if let keys = outcome.keys {
            // The client waits for M4 before its first sealed byte; anything sent along with M3 is refused.
            guard parser.bufferedByteCount == 0 else { return close(context) }
            cipher = SessionCipher(keys: keys, role: .accessory)
            timer?.cancel()
            timer = nil
            return
        }
        answerNext(context)
    }

    private func refuse(_ context: ChannelHandlerContext, status: Int, message: String) {
        let code = status == 470 ? "connectionAuthorizationRequired" : "badRequest"
        let body = Array(#"{"error":{"code":"\#(code)","message":"\#(message)"}}"#.utf8)
        let response = HAP.HTTPResponse(
            status: HTTPResponseStatus(
                code: status,
                reasonPhrase: HTTPResponseStatus.standardReasonPhrase(for: status)
            ),
            headers: ["Content-Type": "application/json", "Connection": "close"],
            body: body
        )
        context.writeAndFlush(
            wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(bytes: response.encoded()))),
            promise: nil
        )
        close(context)
    }

    private func close(_ context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard cipher != nil, !isClosing else {
            // Nothing from the API leaves before the session is verified.
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .byteBuffer(let buffer):
            let sealed = buffer.withUnsafeReadableBytes { cipher?.seal($0) ?? [] }
            context.write(
                wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(bytes: sealed))),
                promise: promise
            )
        case .fileRegion:
            promise?.fail(ChannelError.operationUnsupported)
        }
    }
}
