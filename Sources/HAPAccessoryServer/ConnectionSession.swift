import HAP
import NIOCore

/// What one connection carries between requests; owned by its handler, lent to the server for each request.
struct ConnectionSession: Sendable {
    /// The controller verified on this connection, once pair-verify succeeded.
    var controllerID: [UInt8]?
    /// A pair-setup this connection is in the middle of.
    var pairSetup: PairSetupAccessory?
    /// A pair-verify this connection is in the middle of.
    var pairVerify: PairVerifyAccessory?
    /// The last `PUT /prepare`: its id and when it expires (server uptime).
    var preparedWrite: (id: UInt64, deadline: Duration)?

    /// Whether pair-verify succeeded, so every byte is encrypted.
    var isVerified: Bool { controllerID != nil }
}

/// What the handler does after the server answered a request.
struct RouteOutcome: Sendable {
    /// What the server does once the response has been written.
    enum Followup: Sendable, Equatable {
        /// Announce the current advertisement (sf changed).
        case publishAdvertisement
        /// Close the sessions verified as these controllers (hap-protocol.md §6).
        case closeSessions(of: [[UInt8]])
        /// Give the heap pages freed by a large answer back to the system.
        case releaseFreeMemory
    }

    var response: HTTPResponse
    var session: ConnectionSession
    /// Encrypt every byte after this response with these keys (pair-verify M4).
    var sessionKeys: SessionKeys?
    var followups: [Followup] = []
    var closesConnection = false
}

/// The server's way to reach one connection from any thread: everything it does hops to the connection's loop.
final class ConnectionHandle: Sendable {
    let eventLoop: any EventLoop
    /// The peer's address and port as logs show it (`127.0.0.1:50123`, `[::1]:50123`).
    let peer: String
    private let handler: NIOLoopBound<HAPConnectionHandler>

    /// Must be made on `eventLoop`.
    init(handler: HAPConnectionHandler, eventLoop: any EventLoop, peer: String) {
        self.eventLoop = eventLoop
        self.peer = peer
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
    }

    /// `address` as logs show a peer: the IP address and port, or a placeholder when there is none.
    static func peerDescription(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress else { return "unknown peer" }
        let port = address.port.map(String.init) ?? "?"
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Queues events for the connection; `immediately` skips coalescing (ProgrammableSwitchEvent).
    func deliver(_ changes: [CharacteristicChange], immediately: Bool) {
        let handler = self.handler
        eventLoop.execute { handler.value.enqueueEvents(changes, immediately: immediately) }
    }

    /// Closes the connection.
    func close() {
        let handler = self.handler
        eventLoop.execute { handler.value.closeConnection() }
    }
}
