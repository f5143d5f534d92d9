import Foundation
import HearthAPI
import HomeGraph
import NIOCore
import NIOWebSocket
import Synchronization

/// How one event connection's change events travel from the hub to its socket.
///
/// While the session sends its hello, answers a `resume` or holds events back, each event goes through the
/// session's stream and its task. Once the session is live and has nothing waiting, the hub's publish writes each
/// event's frame straight into the connection's channel: no stream, no task wake and no async writer between the
/// commit and the socket. An event the session must act on (its user's removal) and any client message bring the
/// session back to the stream first.
final class EventRoute: Sendable {
    private enum Mode {
        /// Events go through the session's stream.
        case queued
        /// Events are written into the channel by the hub.
        case direct
        /// The session ended: events are dropped.
        case closed
    }

    private struct State {
        var mode = Mode.queued
        /// Events yielded to the stream and not yet taken by the session.
        var waiting = 0
        /// Whether the route went direct since the session last took its sequences back.
        var wentDirect = false
        /// The last sequence sent per home while direct.
        var lastSent: [UUID: UInt64] = [:]
    }

    private let state = Mutex(State())
    private let channel: any Channel
    private let frames: EventFrames
    private let backlog: EventBacklog
    private let userID: UUID

    /// The route of `userID`'s session on `channel`, with the shared frame texts and its backlog count, once a
    /// ``FramesAfterCloseGuard`` is in its pipeline; `nil` (the session sends every event itself) otherwise.
    static func guarded(
        _ channel: (any Channel)?,
        frames: EventFrames,
        backlog: EventBacklog,
        userID: UUID
    ) async -> EventRoute? {
        guard let channel, await FramesAfterCloseGuard.install(on: channel) else { return nil }
        return EventRoute(channel: channel, frames: frames, backlog: backlog, userID: userID)
    }

    private init(channel: any Channel, frames: EventFrames, backlog: EventBacklog, userID: UUID) {
        self.channel = channel
        self.frames = frames
        self.backlog = backlog
        self.userID = userID
    }

    /// Hands `event` on (called on the hub's actor): written into the channel when direct, else `queue`d for the
    /// session, which must call ``taken()`` for each.
    func deliver(_ event: HomeEvent, queue: (HomeEvent) -> Void) {
        state.withLock { state in
            if case .direct = state.mode {
                if let last = state.lastSent[event.homeID], event.sequence <= last { return }
                if let frame = directFrame(event) {
                    state.lastSent[event.homeID] = event.sequence
                    write(frame)
                    return
                }
                // The session acts on this one itself (its user's removal, a frame too large for one piece).
                state.mode = .queued
            }
            guard case .queued = state.mode else { return }
            state.waiting += 1
            queue(event)
        }
    }

    /// One queued event was taken by the session.
    func taken() {
        state.withLock { $0.waiting -= 1 }
    }

    /// Lets the hub write from now on when nothing waits in the session's stream (`lastSent`: the session's last
    /// sequence sent per home).
    func goDirect(lastSent: [UUID: UInt64]) {
        state.withLock { state in
            guard case .queued = state.mode, state.waiting == 0 else { return }
            state.mode = .direct
            state.wentDirect = true
            state.lastSent = lastSent
        }
    }

    /// Returns events to the session's stream and merges what the hub sent into `lastSent`; returns once every
    /// frame the hub wrote is in the channel, so that the session's next write follows them.
    func leaveDirect(_ lastSent: inout [UUID: UInt64]) async {
        let sent: [UUID: UInt64]? = state.withLock { state in
            if case .direct = state.mode { state.mode = .queued }
            guard state.wentDirect else { return nil }
            state.wentDirect = false
            return state.lastSent
        }
        guard let sent else { return }
        lastSent.merge(sent, uniquingKeysWith: max)
        await barrier()
    }

    /// Stops routing (later events are dropped) once the hub's frames are in the channel.
    func close() async {
        let wentDirect = state.withLock { state in
            state.mode = .closed
            return state.wentDirect
        }
        if wentDirect { await barrier() }
    }

    /// Waits until the channel's loop has run what was handed to it before now: the hub's writes from another loop
    /// wait there as tasks, and the loop runs its tasks in order.
    private func barrier() async {
        try? await channel.eventLoop.submit {}.get()
    }

    /// The frame the hub writes for `event`, or `nil` when the session must handle it.
    private func directFrame(_ event: HomeEvent) -> WebSocketFrame? {
        if case .userRemoved(let removed) = event.change, removed == userID { return nil }
        guard let text = frames.text(of: event) else { return nil }
        guard text.readableBytes <= EventSession.maximumFrameSize else { return nil }
        return WebSocketFrame(fin: true, opcode: .text, data: text)
    }

    /// Writes `frame`, counted in the backlog until the socket takes it.
    private func write(_ frame: WebSocketFrame) {
        guard case .accepted = backlog.enqueue() else { return }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [backlog] _ in backlog.dequeue() }
        channel.writeAndFlush(frame, promise: promise)
    }
}

/// Refuses every frame written after a close frame, so nothing follows the close on the wire.
///
/// The hub writes live events into the channel from its own loop, while Hummingbird's WebSocket handler may send
/// a close at any time (answering the client's, or on a protocol error) before the session hears of it. Sits
/// between the frame encoder and the async channel's handler, so it sees the writes of both.
final class FramesAfterCloseGuard: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var closeSent = false

    /// Makes a guard that has seen no close.
    init() {}

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closeSent else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if unwrapOutboundIn(data).opcode == .connectionClose { closeSent = true }
        context.write(data, promise: promise)
    }

    /// Puts a guard into `channel`'s pipeline right after its WebSocket frame encoder; whether it is in place.
    static func install(on channel: any Channel) async -> Bool {
        let installed = try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
            try operations.addHandler(FramesAfterCloseGuard(), position: .after(encoder))
        }.get()
        return installed != nil
    }
}
