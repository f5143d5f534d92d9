import Foundation

/// How long a connection waits for the TCP handshake and for each answer.
public struct ConnectionTimeouts: Sendable, Equatable {
    /// The longest wait for the TCP connection (aiohomekit uses 10 s, hap-protocol.md §7.9).
    public var connect: Duration
    /// The longest wait for one answer; then the connection is reset (iOS gives up after about 10 s).
    public var request: Duration

    /// Makes timeouts; both default to 10 s.
    public init(connect: Duration = .seconds(10), request: Duration = .seconds(10)) {
        self.connect = connect
        self.request = request
    }
}
