import Foundation

/// Where new object ids come from when the caller does not choose them; tests pass a seeded one.
public protocol IDGenerator {
    /// The next id, never returned before by this generator.
    mutating func makeID() -> UUID
}

/// Random ids from the system, for production.
public struct SystemIDGenerator: IDGenerator, Sendable {
    /// Makes the generator.
    public init() {}

    /// A new random (version 4) UUID.
    public mutating func makeID() -> UUID { UUID() }
}

/// Version 4 UUIDs from a SplitMix64 sequence: the same seed always gives the same ids.
public struct SeededIDGenerator: IDGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next id of the sequence.
    public mutating func makeID() -> UUID {
        let high = next()
        let low = next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * $0)) }
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
