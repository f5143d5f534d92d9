import Foundation

/// A small seeded random generator (SplitMix64) so property and fuzz tests can be replayed from their seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Random bytes of the given length.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// A seed from the environment (`HEARTH_TEST_SEED`) when set, else a fresh one; tests print it on failure.
    public static func testSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["HEARTH_TEST_SEED"], let seed = UInt64(text) {
            return seed
        }
        return UInt64.random(in: .min ... .max)
    }
}

/// Flips, inserts, deletes or truncates bytes of a valid input, the way a mutation fuzzer does.
public func mutate(_ input: [UInt8], using random: inout SplitMix64) -> [UInt8] {
    var bytes = input
    let rounds = Int.random(in: 1...4, using: &random)
    for _ in 0..<rounds {
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where !bytes.isEmpty:
            let index = Int.random(in: 0..<bytes.count, using: &random)
            bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1 where !bytes.isEmpty:
            let index = Int.random(in: 0..<bytes.count, using: &random)
            bytes[index] = UInt8.random(in: .min ... .max, using: &random)
        case 2:
            let index = Int.random(in: 0...bytes.count, using: &random)
            bytes.insert(UInt8.random(in: .min ... .max, using: &random), at: index)
        case 3 where !bytes.isEmpty:
            bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
        default:
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
        }
    }
    return bytes
}
