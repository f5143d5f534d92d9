import Foundation
import HAP
import HAPTypes
import Logging
import NIOCore
import NIOPosix

/// One TCP connection to an accessory at a time: connect, pair-verify, session cipher, HTTP/1.1.
///
/// Requests wait in a queue and go out one at a time (hap-protocol.md §7.9: peers do not pipeline). A request that
/// finds no connection opens one first. On a timeout, a closed socket or bad bytes, the connection is dropped and the
/// next request opens a new one. EVENT messages between answers go to the event handler.
///
/// The actor runs on one event loop, the one its channels use: received bytes are decrypted and parsed where they
/// arrive, answers and timeouts need no other thread, and a ``PairedAccessory`` on the same loop calls it without a
/// hop. Where the session is, the turn and the request in flight are one value, ``ConnectionStateMachine``: each
/// event goes to it, and this actor does what it answers (I/O, resuming waiters, reports).
actor AccessoryConnection: EventLoopBoundActor {
    /// Whether the connection is verified before use.
    enum Security: Sendable {
        /// Plain HTTP, for pair-setup and identify of an unpaired accessory.
        case plain
        /// Pair-verify as this controller with this accessory, then encrypt.
        case verified(ControllerIdentity, AccessoryPairing)
    }

    /// Waits for one answer.
    ///
    /// Unsafe continuations, each resumed exactly once: by the answer, a timeout or the channel's end, all of which
    /// take it out of the state machine before resuming; by ``begin`` when there is no channel; or, for a request
    /// that could not be written at once, by the task that sends it in its turn.
    typealias Waiter = UnsafeContinuation<Result<HTTPResponse, HAPControllerError>, Never>
    /// The connection's state machine, over NIO channels and these waiters.
    typealias StateMachine = ConnectionStateMachine<any Channel, Waiter, UnsafeContinuation<Void, Never>>

    let host: String
    let port: Int
    let security: Security
    let timeouts: ConnectionTimeouts
    /// The `Host` header: address and port.
    nonisolated let hostHeader: String
    /// The `Host` and `Content-Type: application/hap+json` lines of every JSON request, written once.
    private let jsonHeaderLines: [UInt8]
    /// The loop this actor and its channels run on.
    nonisolated let eventLoop: any EventLoop

    /// Receives sessions coming and going and the events between answers, on ``eventLoop``.
    var eventHandler: (@Sendable (ConnectionEvent) -> Void)?
    let logger: Logger
    /// Where the session is, the turn and the request in flight.
    var machine = StateMachine()
    /// The session's cipher once pair-verify has ended; kept out of ``machine`` so sealing mutates it in place.
    var cipher: SessionCipher?
    /// Answers and events are read for their status and body; header fields are checked but not kept.
    var parser = HTTPResponseParser(keepsHeaders: false)
    /// The plaintext of the request going out and of the bytes coming in; kept so their storage is reused.
    private var outgoing: [UInt8] = []
    private var incoming: [UInt8] = []
    /// The buffer the last request was sealed into, reused when the channel has written it.
    private var sendBuffer: ByteBuffer?
    /// The timer checking the request in flight, scheduled when ``machine`` asks; requests that answer in time do
    /// not touch it.
    private var timer: Scheduled<Void>?
    /// How many requests were written at once by ``startJSONOnLoop``, without a task or a wait (for tests).
    private(set) var requestsWrittenAtOnce = 0

    /// Runs the actor on the event loop its channels use; ``receiveOnLoop(_:generation:)`` relies on it.
    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    init(
        host: String,
        port: Int,
        security: Security,
        timeouts: ConnectionTimeouts,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.timeouts = timeouts
        hostHeader = "\(host):\(port)"
        jsonHeaderLines =
            HTTPHeaders([("Host", hostHeader), ("Content-Type", HTTPContentType.hapJSON.rawValue)]).encodedLines
        self.eventLoop = eventLoop
        self.logger = logger
    }

    init(
        host: String,
        port: Int,
        security: Security,
        timeouts: ConnectionTimeouts,
        group: any EventLoopGroup,
        logger: Logger
    ) {
        self.init(
            host: host,
            port: port,
            security: security,
            timeouts: timeouts,
            eventLoop: group.next(),
            logger: logger
        )
    }

    deinit {
        // Released without shutDown(): close the socket so nothing is left running.
        timer?.cancel()
        switch machine.state {
        case .verifying(let channel), .open(let channel): channel.close(promise: nil)
        case .idle, .connecting, .closed: break
        }
    }

    /// Sets who hears about sessions and events; called on ``eventLoop``.
    func setEventHandler(_ handler: @escaping @Sendable (ConnectionEvent) -> Void) {
        eventHandler = handler
    }

    /// Sends one request when its turn comes, connecting first if needed, and returns the answer.
    func send(_ request: HTTPRequest) async throws(HAPControllerError) -> HTTPResponse {
        await acquire()
        defer { release() }
        try await establish()
        return try await exchange(request)
    }

    /// Sends a hap+json request from ``eventLoop`` without waiting for this actor: it is written now if the session
    /// is open and nothing holds the turn, else a task waits for the turn and connects first; `waiter` is answered
    /// once either way.
    ///
    /// The target is `path`, then `?` and the query of `readQuery` when given; the headers are `Host` and
    /// `Content-Type`. The bytes are those of an ``HTTPRequest`` with the same parts. It runs the actor's code
    /// with ``EventLoopBoundActor/runOnLoop(_:_:_:)``.
    nonisolated func startJSONOnLoop(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        waiter: Waiter
    ) {
        runOnLoop(JSONRequest(method: method, path: path, readQuery: readQuery, body: body), waiter) {
            $0.startJSON($1, waiter: $2)
        }
    }

    /// ``startJSONOnLoop(_:path:readQuery:body:waiter:)`` on this actor; a request written now gives the turn back
    /// when it is answered.
    private func startJSON(_ request: JSONRequest, waiter: Waiter) {
        switch machine.requestOnLoop() {
        case .write:
            requestsWrittenAtOnce += 1
            encodeOutgoing(request.method, path: request.path, readQuery: request.readQuery, body: request.body)
            begin(plaintext: outgoing, waiter: waiter, releasesTurn: true)
        case .handToTask:
            Task {
                // The task runs on this actor: it takes its place in the queue in the same job.
                machine.requestTaken()
                do throws(HAPControllerError) {
                    let answer = try await sendJSON(
                        request.method,
                        path: request.path,
                        readQuery: request.readQuery,
                        body: request.body
                    )
                    waiter.resume(returning: .success(answer))
                } catch {
                    waiter.resume(returning: .failure(error))
                }
            }
        }
    }

    /// Sends a hap+json request in its turn like ``send(_:)``, written straight as bytes (see
    /// ``startJSONOnLoop(_:path:readQuery:body:waiter:)``).
    func sendJSON(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery? = nil,
        body: [UInt8] = []
    ) async throws(HAPControllerError) -> HTTPResponse {
        // An idle queue and an open session take no call that could suspend.
        if case .wait = machine.takeTurn() { await withUnsafeContinuation { machine.waitForTurn($0) } }
        defer { release() }
        if !machine.isOpen { try await establish() }
        encodeOutgoing(method, path: path, readQuery: readQuery, body: body)
        return try await exchange(plaintext: outgoing)
    }

    /// Writes the request's bytes into the reused ``outgoing``.
    private func encodeOutgoing(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8]
    ) {
        outgoing.removeAll(keepingCapacity: true)
        Self.encodeJSON(
            method,
            path: path,
            readQuery: readQuery,
            body: body,
            headerLines: jsonHeaderLines,
            into: &outgoing
        )
    }

    /// Opens (and verifies) a connection if there is none, in turn with the requests.
    func connect() async throws(HAPControllerError) {
        await acquire()
        defer { release() }
        try await establish()
    }

    /// Posts a pairing TLV8 body and returns the TLV8 answer.
    func postTLV8(_ path: String, _ body: TLV8) async throws(HAPControllerError) -> TLV8 {
        try Self.decodeTLV8(try await send(tlv8Request(path, body)))
    }

    /// Closes the connection for good; later requests fail with ``HAPControllerError/closed``.
    func shutDown() {
        perform(machine.shutDown(), failing: .closed)
        eventHandler = nil
    }

    // MARK: The turn

    private func acquire() async {
        if case .wait = machine.takeTurn() { await withUnsafeContinuation { machine.waitForTurn($0) } }
    }

    private func release() {
        machine.releaseTurn()?.resume()
    }

    // MARK: One exchange

    func exchange(_ request: HTTPRequest) async throws(HAPControllerError) -> HTTPResponse {
        try await exchange(plaintext: request.encoded())
    }

    private func exchange(plaintext: [UInt8]) async throws(HAPControllerError) -> HTTPResponse {
        let result = await withUnsafeContinuation { (waiter: Waiter) in
            begin(plaintext: plaintext, waiter: waiter, releasesTurn: false)
        }
        return try result.get()
    }

    /// Seals and writes one request and makes `waiter` the one answered next; with `releasesTurn`, the turn is
    /// given back when it is answered (by the answer, a timeout or the channel's end).
    private func begin(plaintext: [UInt8], waiter: Waiter, releasesTurn: Bool) {
        let deadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(timeouts.request))
        let channel: any Channel
        switch machine.writeRequest(waiter, releasesTurn: releasesTurn, deadline: deadline) {
        case .fail(let waiter, let nextTurn):
            waiter.resume(returning: .failure(.connectionClosed))
            nextTurn?.resume()
            return
        case .write(let current, let timerDeadline):
            channel = current
            if let timerDeadline { armTimer(at: timerDeadline) }
        }
        // The last request's buffer is unique again once the channel has written it; `clear()` then keeps its
        // storage (it takes new storage if the channel still holds the old).
        var buffer = sendBuffer ?? channel.allocator.buffer(capacity: 0)
        sendBuffer = nil
        buffer.clear()
        if cipher != nil {
            let count = SessionCipher.sealedByteCount(plaintextCount: plaintext.count)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { output in
                plaintext.withUnsafeBytes { input in cipher?.seal(input, into: output) ?? 0 }
            }
        } else {
            buffer.writeBytes(plaintext)
        }
        if buffer.capacity <= Self.keptBufferCapacity { sendBuffer = buffer }
        if outgoing.capacity > Self.keptBufferCapacity { outgoing = [] }
        // hap-protocol.md §7.9: each message in one write.
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Answers the request in flight, and gives the turn back if its caller left that to the answer.
    private func answerPending(_ response: HTTPResponse) {
        guard let answer = machine.answerReceived() else {
            logger.debug("Dropping an answer nobody waits for", metadata: ["host": "\(host)"])
            return
        }
        answer.waiter.resume(returning: .success(response))
        answer.nextTurn?.resume()
    }

    /// Schedules the check of the request in flight at `deadline`.
    private func armTimer(at deadline: NIODeadline) {
        timer = eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            self?.runOnLoop { $0.timerFired() }
        }
    }

    /// Times out the request in flight if its deadline has passed, else waits for the deadline of the one now in
    /// flight; with nothing in flight the timer stops.
    private func timerFired() {
        timer = nil
        switch machine.timerFired(now: .now()) {
        case .stop:
            break
        case .rearm(let deadline):
            armTimer(at: deadline)
        case .timeOut:
            logger.debug("Request timed out; resetting the connection", metadata: ["host": "\(host)"])
            dropChannel(failing: .timedOut)
        }
    }

    /// The most bytes a reused buffer or array keeps between messages; a larger one is let go after use.
    private static let keptBufferCapacity = 16 * 1024

    /// Hands received bytes to ``receive(_:generation:)`` from the channel's handler, which NIO runs on
    /// ``eventLoop``, this actor's executor (``EventLoopBoundActor/runOnLoop(_:_:_:)``).
    nonisolated func receiveOnLoop(_ buffer: ByteBuffer, generation: Int) {
        runOnLoop(buffer, generation) { $0.receive($1, generation: $2) }
    }

    private func receive(_ buffer: ByteBuffer, generation: Int) {
        guard machine.isCurrent(generation: generation) else { return }
        if cipher != nil {
            do throws(SessionCipherError) {
                incoming.removeAll(keepingCapacity: true)
                try buffer.withUnsafeReadableBytes { bytes throws(SessionCipherError) in
                    try cipher?.open(bytes, appendingTo: &incoming)
                }
                parser.append(incoming)
                if incoming.capacity > Self.keptBufferCapacity { incoming = [] }
            } catch {
                dropChannel(failing: .sessionFailed(error))
                return
            }
        } else {
            parser.append(buffer.readableBytesView)
        }
        while true {
            let message: HTTPResponse?
            do throws(HTTPParseError) {
                message = try parser.nextResponse()
            } catch {
                dropChannel(failing: .malformedResponse(error))
                return
            }
            guard let message else { return }
            if message.kind == .event {
                // hap-protocol.md §7.8: events only come on verified sessions; a plain one has none to give.
                if cipher != nil { eventHandler?(.event(message)) }
                continue
            }
            answerPending(message)
        }
    }

    /// The channel numbered `generation` closed.
    func channelClosed(generation: Int) {
        guard let drop = machine.channelClosed(generation: generation) else { return }
        perform(drop, failing: .connectionClosed)
    }

    /// Closes the channel, fails the request in flight, and reports the end of an open session.
    func dropChannel(failing error: HAPControllerError) {
        perform(machine.dropChannel(), failing: error)
    }

    /// Does what the state machine answered to the channel's end; the request in flight fails with `error`.
    func perform(_ drop: StateMachine.Drop, failing error: HAPControllerError) {
        if drop.cancelsTimer {
            timer?.cancel()
            timer = nil
        }
        cipher = nil
        drop.failing?.resume(returning: .failure(error))
        drop.nextTurn?.resume()
        drop.channel?.close(promise: nil)
        if drop.endsSession { eventHandler?(.disconnected) }
    }
}
