import Foundation
import HearthAPI
import HomeGraph
import Hub
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// The open event connections by user, token and browser session, so that revoking access closes them at once.
public actor ConnectionRegistry {
    struct Entry {
        let principal: Principal
        let revoke: AsyncStream<String>.Continuation
    }

    private var entries: [UUID: Entry] = [:]

    /// Makes an empty registry.
    public init() {}

    /// How many event connections are open.
    public var count: Int { entries.count }

    /// Records a connection; the stream yields a reason when its access is revoked.
    func register(_ principal: Principal) -> (id: UUID, revoked: AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        entries[id] = Entry(principal: principal, revoke: continuation)
        return (id, stream)
    }

    /// Forgets a connection that closed.
    func remove(_ id: UUID) {
        entries[id]?.revoke.finish()
        entries[id] = nil
    }

    /// Closes every connection opened with the token `tokenID`.
    public func revoke(token tokenID: UUID, reason: String) {
        for entry in entries.values where entry.principal.tokenID == tokenID { entry.revoke.yield(reason) }
    }

    /// Closes every connection opened with the browser session `sessionID` (its cookie).
    public func revoke(session sessionID: UUID, reason: String) {
        for entry in entries.values where entry.principal.sessionID == sessionID { entry.revoke.yield(reason) }
    }

    /// Closes every connection of the user `userID`.
    public func revoke(user userID: UUID, reason: String) {
        for entry in entries.values where entry.principal.userID == userID { entry.revoke.yield(reason) }
    }
}

/// One event WebSocket: a hello, then the user's change events, the missed ones first after a `resume`.
///
/// It ends when the client closes, or at once when access is revoked.
struct EventSession {
    enum Input: Sendable {
        case event(HomeEvent)
        case nearby(NearbyAccessoryEvent)
        case client(String)
        case graceOver
        case revoked(String)
        case clientClosed
        case overflowed
    }

    let server: HubServer
    let principal: Principal

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let caller = HubCaller.user(principal.userID)
        let (connectionID, revoked) = await server.connections.register(principal)
        defer { Task { [connections = server.connections] in await connections.remove(connectionID) } }
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        // Subscribed before the hello is read, so no event falls between the two. The hub yields each event
        // straight into this session's inputs: no task of its own per connection between the two.
        let hub = server.hub
        let backlog = EventBacklog(
            limit: server.configuration.maximumQueuedEvents,
            channel: CurrentConnection.channel,
            logger: server.logger
        )
        let route = await EventRoute.guarded(
            CurrentConnection.channel,
            frames: server.eventFrames,
            backlog: backlog,
            userID: principal.userID
        )
        let queue: @Sendable (HomeEvent) -> Void = { event in
            switch backlog.enqueue() {
            case .accepted: input.yield(.event(event))
            case .overflowed: input.yield(.overflowed)
            case .dropped: break
            }
        }
        let subscription = await hub.subscribe(
            as: caller,
            onEvent: { event in
                guard let route else { return queue(event) }
                route.deliver(event, queue: queue)
            },
            onEnd: {}
        )
        defer { Task { await hub.unsubscribe(subscription) } }
        // Owners and administrators also hear of accessories appearing and going nearby (checked per event).
        let nearby = await hub.subscribeNearby(as: caller) { event in
            switch backlog.enqueue() {
            case .accepted: input.yield(.nearby(event))
            case .overflowed: input.yield(.overflowed)
            case .dropped: break
            }
        }
        defer { Task { await hub.unsubscribeNearby(nearby) } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 64 * 1024) {
                        if case .text(let text) = message { input.yield(.client(text)) }
                    }
                } catch {}
                input.yield(.clientClosed)
            }
            group.addTask {
                for await reason in revoked {
                    input.yield(.revoked(reason))
                    return
                }
            }
            group.addTask { [grace = server.configuration.resumeGrace] in
                try? await Task.sleep(for: grace)
                input.yield(.graceOver)
            }
            await serve(inputs, backlog: backlog, route: route, outbound: outbound)
            await route?.close()
            input.finish()
            group.cancelAll()
        }
    }

    /// The session's loop: holds events until the first client message or the grace period, then forwards; once
    /// live with nothing waiting, it lets the hub write events directly (`route`) until it must act itself.
    private func serve(
        _ inputs: AsyncStream<Input>,
        backlog: EventBacklog,
        route: EventRoute?,
        outbound: WebSocketOutboundWriter
    ) async {
        let caller = HubCaller.user(principal.userID)
        let graph = server.hub.graph
        let homes = graph.homes(visibleTo: caller).map {
            ServerMessage.HomeSequence(homeID: $0.id, sequence: graph.lastSequence(ofHome: $0.id))
        }
        var lastSent: [UUID: UInt64] = [:]
        var held: [HomeEvent] = []
        var holding = true
        guard await send(.hello(userID: principal.userID, homes: homes), outbound) else { return }
        for await item in inputs {
            switch item {
            case .nearby: break
            // The hub's frames go out before anything this session writes now.
            default: await route?.leaveDirect(&lastSent)
            }
            switch item {
            case .event(let event):
                backlog.dequeue()
                route?.taken()
                if holding {
                    held.append(event)
                } else if await !forward(event, &lastSent, outbound) {
                    return
                }
                if case .userRemoved(let userID) = event.change, userID == principal.userID {
                    let remaining = server.hub.graph.homes(visibleTo: caller)
                    if remaining.isEmpty {
                        // No resume can follow: what was held back goes out first, the removal last.
                        for event in held {
                            guard await forward(event, &lastSent, outbound) else { return }
                        }
                        try? await outbound.close(.policyViolation, reason: "access revoked: removed from the home")
                        return
                    }
                }
            case .nearby(let event):
                backlog.dequeue()
                guard await send(Self.message(event), outbound) else { return }
            case .client(let text):
                if let message = try? JSONBody.decode(ClientMessage.self, from: Data(text.utf8)) {
                    guard await resume(message.resume, &lastSent, outbound) else { return }
                    if holding {
                        holding = false
                        for event in held {
                            guard await forward(event, &lastSent, outbound) else { return }
                        }
                        held = []
                    }
                } else {
                    let detail = ErrorBody.Detail(
                        code: "invalidRequest",
                        message: "send {\"resume\": {\"<homeID>\": N}}"
                    )
                    guard await send(.error(detail), outbound) else { return }
                }
            case .graceOver:
                if holding {
                    holding = false
                    for event in held {
                        guard await forward(event, &lastSent, outbound) else { return }
                    }
                    held = []
                }
            case .revoked(let reason):
                try? await outbound.close(.policyViolation, reason: "access revoked: \(reason)")
                return
            case .clientClosed, .overflowed:
                return
            }
            if !holding { route?.goDirect(lastSent: lastSent) }
        }
    }

    /// Sends the changes after each home's sequence, or `reloadRequired`, and remembers what was sent.
    private func resume(
        _ positions: [String: UInt64],
        _ lastSent: inout [UUID: UInt64],
        _ outbound: WebSocketOutboundWriter
    ) async -> Bool {
        for (key, after) in positions.sorted(by: { $0.key < $1.key }) {
            guard let homeID = UUID(uuidString: key) else {
                let detail = ErrorBody.Detail(code: "notFound", message: "no home with id \(APIError.shown(key))")
                guard await send(.error(detail), outbound) else { return false }
                continue
            }
            do {
                let history = try await server.hub.changes(after: after, inHome: homeID, as: .user(principal.userID))
                switch history {
                case .events(let events):
                    for event in events {
                        guard await forward(event, &lastSent, outbound) else { return false }
                    }
                    lastSent[homeID] = max(lastSent[homeID] ?? 0, after)
                case .reloadRequired(let current):
                    guard await send(.reloadRequired(homeID: homeID, currentSequence: current), outbound) else {
                        return false
                    }
                    lastSent[homeID] = current
                }
            } catch {
                let apiError = APIError(error)
                guard await send(.error(.init(code: apiError.code, message: apiError.message)), outbound) else {
                    return false
                }
            }
        }
        return true
    }

    /// Sends an event unless one at or after its sequence was already sent for its home.
    private func forward(
        _ event: HomeEvent,
        _ lastSent: inout [UUID: UInt64],
        _ outbound: WebSocketOutboundWriter
    ) async -> Bool {
        if let last = lastSent[event.homeID], event.sequence <= last { return true }
        lastSent[event.homeID] = event.sequence
        // Encoded once for every connection that sends it.
        guard let text = server.eventFrames.text(of: event) else { return true }
        do {
            if text.readableBytes <= Self.maximumFrameSize {
                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: text)))
            } else {
                try await outbound.writeTextMessage(String(buffer: text))
            }
            return true
        } catch {
            return false
        }
    }

    /// The `found` or `removed` message of a nearby accessory's event.
    static func message(_ event: NearbyAccessoryEvent) -> ServerMessage {
        switch event {
        case .found(let accessory): .found(NearbyAccessory(accessory))
        case .removed(let deviceID): .removed(deviceID: deviceID)
        }
    }

    /// The largest frame the server sends whole (the WebSocket configuration's `maxFrameSize`).
    static let maximumFrameSize = 1 << 20

    private func send(_ message: ServerMessage, _ outbound: WebSocketOutboundWriter) async -> Bool {
        guard let data = try? JSONEncoder.api.encode(message) else { return true }
        do {
            try await outbound.writeTextMessage(String(decoding: data, as: UTF8.self))
            return true
        } catch {
            return false
        }
    }
}

/// The count of events waiting for one event connection's client.
///
/// A client that stops reading leaves its socket full and the session's writes waiting; the hub goes on handing it
/// events. Past `limit` waiting events the connection is closed at once (a close frame would wait behind the full
/// socket too), and the client, when it comes back, resumes by sequence and misses nothing.
final class EventBacklog: Sendable {
    private let limit: Int
    private let channel: (any Channel)?
    private let logger: Logger
    /// Atomics, not a lock: the hub counts every event of every session here.
    private let waiting = Synchronization.Atomic<Int>(0)
    private let overflowed = Synchronization.Atomic<Bool>(false)

    /// Counts up to `limit` waiting events for the connection on `channel`.
    init(limit: Int, channel: (any Channel)?, logger: Logger) {
        self.limit = limit
        self.channel = channel
        self.logger = logger
    }

    /// What became of an event handed to the session.
    enum Admission {
        /// It waits in the session's inputs.
        case accepted
        /// It passed the limit: the connection is closed and the session must end.
        case overflowed
        /// The session has overflowed already; the event is dropped (the client resumes by sequence).
        case dropped
    }

    /// Counts one more waiting event; past the limit the connection is closed.
    func enqueue() -> Admission {
        guard !overflowed.load(ordering: .relaxed) else { return .dropped }
        guard waiting.add(1, ordering: .relaxed).newValue > limit else { return .accepted }
        let admission: Admission =
            overflowed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
            ? .overflowed : .dropped
        guard case .overflowed = admission else { return admission }
        logger.info(
            "closing an event connection whose client stopped reading; it resumes by sequence when it reconnects",
            metadata: ["limit": "\(limit)", "peer": "\(channel?.remoteAddress?.description ?? "?")"]
        )
        channel?.close(promise: nil)
        return .overflowed
    }

    /// One waiting event was taken.
    func dequeue() { waiting.subtract(1, ordering: .relaxed) }
}
