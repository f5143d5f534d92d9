import NIOCore

/// One message on a hub's link to its relay: the proof exchange, then streams multiplexed by number.
///
/// Every message is one binary WebSocket message: a type byte, then the type's fields (stream numbers are
/// big-endian `UInt32`). Payloads are opaque to the relay.
public enum RelayFrame: Equatable, Sendable {
    /// Relay → hub: the random bytes the hub must sign.
    case challenge([UInt8])
    /// Hub → relay: the hub's Ed25519 public key and its signature (``HubProof``).
    case proof(publicKey: [UInt8], signature: [UInt8])
    /// Relay → hub: the proof is accepted; streams may follow.
    case accepted
    /// Relay → hub: a client opened stream `stream`.
    case open(stream: UInt32)
    /// Either way: bytes of stream `stream`.
    case data(stream: UInt32, payload: ByteBuffer)
    /// Either way: stream `stream` has ended.
    case close(stream: UInt32)

    /// The type bytes.
    enum Kind: UInt8 {
        case open = 1, data = 2, close = 3, challenge = 0x10, proof = 0x11, accepted = 0x12
    }

    /// The bytes a data frame adds to its payload (type and stream number).
    public static let dataHeaderLength = 5

    /// The frame as one WebSocket message's bytes.
    public func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer: ByteBuffer
        switch self {
        case .challenge(let bytes):
            buffer = allocator.buffer(capacity: 1 + bytes.count)
            buffer.writeInteger(Kind.challenge.rawValue)
            buffer.writeBytes(bytes)
        case .proof(let publicKey, let signature):
            buffer = allocator.buffer(capacity: 1 + publicKey.count + signature.count)
            buffer.writeInteger(Kind.proof.rawValue)
            buffer.writeBytes(publicKey)
            buffer.writeBytes(signature)
        case .accepted:
            buffer = allocator.buffer(capacity: 1)
            buffer.writeInteger(Kind.accepted.rawValue)
        case .open(let stream):
            buffer = allocator.buffer(capacity: 5)
            buffer.writeInteger(Kind.open.rawValue)
            buffer.writeInteger(stream)
        case .data(let stream, let payload):
            buffer = allocator.buffer(capacity: Self.dataHeaderLength + payload.readableBytes)
            buffer.writeInteger(Kind.data.rawValue)
            buffer.writeInteger(stream)
            buffer.writeImmutableBuffer(payload)
        case .close(let stream):
            buffer = allocator.buffer(capacity: 5)
            buffer.writeInteger(Kind.close.rawValue)
            buffer.writeInteger(stream)
        }
        return buffer
    }

    /// Reads one message; `nil` when it is not a well-formed frame.
    public init?(decoding message: ByteBuffer) {
        var buffer = message
        guard let type = buffer.readInteger(as: UInt8.self), let kind = Kind(rawValue: type) else { return nil }
        switch kind {
        case .challenge:
            guard buffer.readableBytes == HubProof.challengeLength, let bytes = buffer.readBytes(length: 32) else {
                return nil
            }
            self = .challenge(bytes)
        case .proof:
            guard buffer.readableBytes == 96, let key = buffer.readBytes(length: 32),
                let signature = buffer.readBytes(length: 64)
            else { return nil }
            self = .proof(publicKey: key, signature: signature)
        case .accepted:
            guard buffer.readableBytes == 0 else { return nil }
            self = .accepted
        case .open, .close:
            guard buffer.readableBytes == 4, let stream = buffer.readInteger(as: UInt32.self) else { return nil }
            self = kind == .open ? .open(stream: stream) : .close(stream: stream)
        case .data:
            guard let stream = buffer.readInteger(as: UInt32.self) else { return nil }
            self = .data(stream: stream, payload: buffer)
        }
    }
}

/// A token bucket: `rate` tokens a second up to `burst`; each frame takes one.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(burst, 1)
        tokens = self.burst
        last = .now
    }

    /// Takes a token if one is left; whether it could.
    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = last.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
