import NIOCore
import NIOWebSocket
import Synchronization

/// How the relay ends a WebSocket, and the reason it gives (a person may read it).
public enum RelayClose {
    /// Unknown or offline routing id, or the home's link went away: the same answer either way.
    public static let homeOffline = (code: WebSocketErrorCode(codeNumber: 4004), reason: "home offline")
    /// The home already has its maximum of open streams.
    public static let tooManyStreams = (code: WebSocketErrorCode.policyViolation, reason: "too many streams")
    /// The connection sent frames faster than its rate.
    public static let tooManyFrames = (code: WebSocketErrorCode.policyViolation, reason: "too many frames")
    /// A message over the maximum payload.
    public static let frameTooLarge = (code: WebSocketErrorCode.messageTooLarge, reason: "frame too large")
    /// Nothing crossed the stream for the idle timeout.
    public static let idle = (code: WebSocketErrorCode.goingAway, reason: "idle timeout")
    /// The client read too slowly: its queue of frames from the home filled up.
    public static let tooSlow = (code: WebSocketErrorCode.policyViolation, reason: "client reads too slowly")
    /// The hub's proof of its key was wrong, malformed or late.
    public static let proofRefused = (code: WebSocketErrorCode.policyViolation, reason: "hub proof refused")
    /// A newer hub connection for the same routing id took over.
    public static let replaced = (code: WebSocketErrorCode(codeNumber: 4009), reason: "replaced by a newer hub link")
    /// A frame RFC 6455 says must fail the connection: unmasked, with a reserved bit, or of a reserved opcode.
    public static let malformedFrame = (code: WebSocketErrorCode.protocolError, reason: "malformed frame")
    /// A text frame: streams are bytes, carried in binary frames only.
    public static let textRefused = (code: WebSocketErrorCode.unacceptableData, reason: "binary frames only")
}

/// What crossed the relay: for tests that check the relay only ever sees sealed bytes.
public struct ForwardedPayload: Sendable {
    /// Which way the bytes went.
    public enum Direction: Sendable {
        /// From a client's stream to the hub.
        case clientToHub
        /// From the hub to a client's stream.
        case hubToClient
    }

    /// The home.
    public let route: RouteID
    /// The stream's number on the home's link.
    public let stream: UInt32
    /// Which way.
    public let direction: Direction
    /// The bytes, as the relay forwarded them.
    public let bytes: ByteBuffer
}

/// One connected home: its hub's link and the client streams on it.
final class Home: Sendable {
    let route: RouteID
    /// The hub's WebSocket.
    let hub: SocketPeer

    private struct State {
        var streams: [UInt32: SocketPeer] = [:]
        var next: UInt32 = 1
        var closed = false
    }

    private let state = Mutex(State())
    /// Whether the hub's channel takes writes now; while it does not, the streams stop reading their clients.
    private let hubWritable = Atomic(true)

    init(route: RouteID, hub: SocketPeer) {
        self.route = route
        self.hub = hub
    }

    /// Why a stream could not open.
    enum Refusal: Error { case offline, full }

    /// Registers `client` as a new stream and returns its number; throws when the home is closed or full.
    func openStream(_ client: SocketPeer, limit: Int) throws(Refusal) -> UInt32 {
        try state.withLock { (state) throws(Refusal) -> UInt32 in
            guard !state.closed else { throw .offline }
            guard state.streams.count < limit else { throw .full }
            while state.streams[state.next] != nil || state.next == 0 { state.next &+= 1 }
            let number = state.next
            state.next &+= 1
            state.streams[number] = client
            return number
        }
    }

    /// Hands bytes to stream `number` (on its event loop); `false` when the stream is unknown.
    func deliver(_ payload: ByteBuffer, to number: UInt32) -> Bool {
        guard let client = state.withLock({ $0.streams[number] }) else { return false }
        client.deliver(payload)
        return true
    }

    /// Ends stream `number` with `code` and `reason`; whether it was open.
    @discardableResult
    func endStream(_ number: UInt32, code: WebSocketErrorCode, reason: String) -> Bool {
        guard let client = state.withLock({ $0.streams.removeValue(forKey: number) }) else { return false }
        client.close(code, reason: reason)
        return true
    }

    /// Forgets stream `number` (its client left); whether it was open.
    func forgetStream(_ number: UInt32) -> Bool {
        state.withLock { $0.streams.removeValue(forKey: number) != nil }
    }

    /// Closes the home: every stream hears "home offline"; no stream opens after.
    func shutDown() {
        let streams = state.withLock { state in
            state.closed = true
            defer { state.streams = [:] }
            return state.streams
        }
        for client in streams.values {
            client.close(RelayClose.homeOffline.code, reason: RelayClose.homeOffline.reason)
        }
    }

    /// Whether the hub's channel takes writes now.
    var isHubWritable: Bool { hubWritable.load(ordering: .relaxed) }

    /// Records the hub channel's writability; when it returns, the streams read their clients again.
    func hubWritabilityChanged(_ writable: Bool) {
        hubWritable.store(writable, ordering: .relaxed)
        guard writable else { return }
        for client in state.withLock({ Array($0.streams.values) }) { client.resumeReading() }
    }

    /// The number of open streams.
    var streamCount: Int { state.withLock { $0.streams.count } }
}

/// The homes connected to this relay instance, by routing id.
///
/// In memory only: relays share nothing.
final class HomeRegistry: Sendable {
    private let homes = Mutex<[RouteID: Home]>([:])

    /// The connected home for `route`, if any.
    func home(_ route: RouteID) -> Home? { homes.withLock { $0[route] } }

    /// Makes `home` the one for its routing id; returns the one it replaces.
    func attach(_ home: Home) -> Home? {
        homes.withLock { $0.updateValue(home, forKey: home.route) }
    }

    /// Removes `home` if it is still the one for its routing id.
    func detach(_ home: Home) {
        homes.withLock { homes in
            if homes[home.route] === home { homes[home.route] = nil }
        }
    }

    /// The number of connected homes.
    var count: Int { homes.withLock { $0.count } }
}
