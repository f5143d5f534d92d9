/// An unsigned integer of a fixed number of 64-bit limbs, least significant limb first.
///
/// The limb count is chosen when the value is made and does not change with the value, so code that handles
/// secrets does the same work whatever their size. Arithmetic here is plain (not modular) and branch-free on the
/// limb values; modular arithmetic lives in `MontgomeryContext`.
public struct BigUInt: Sendable {
    /// The limbs, least significant first; never empty.
    public private(set) var limbs: [UInt64]

    /// Makes a value from limbs given least significant first; an empty array means a one-limb zero.
    public init(limbs: [UInt64]) {
        self.limbs = limbs.isEmpty ? [0] : limbs
    }

    /// Makes zero with `limbCount` limbs.
    public init(zeroWithLimbCount limbCount: Int) {
        precondition(limbCount > 0, "a BigUInt has at least one limb")
        self.limbs = [UInt64](repeating: 0, count: limbCount)
    }

    /// Makes a small value with `limbCount` limbs.
    public init(_ value: UInt64, limbCount: Int = 1) {
        self.init(zeroWithLimbCount: limbCount)
        limbs[0] = value
    }

    /// Reads a big-endian byte string, using just enough limbs to hold every byte (leading zero bytes count).
    public init(bigEndianBytes bytes: some Collection<UInt8>) {
        self.init(zeroWithLimbCount: max(1, (bytes.count + 7) / 8))
        var limbIndex = 0
        var shift: UInt64 = 0
        for byte in bytes.reversed() {
            limbs[limbIndex] |= UInt64(byte) << shift
            shift += 8
            if shift == 64 {
                shift = 0
                limbIndex += 1
            }
        }
    }

    /// Reads a big-endian byte string into `limbCount` limbs, or returns nil when a nonzero byte would not fit.
    public init?(bigEndianBytes bytes: some Collection<UInt8>, limbCount: Int) {
        guard let resized = BigUInt(bigEndianBytes: bytes).resized(toLimbCount: limbCount) else { return nil }
        self = resized
    }

    /// The number of limbs.
    public var limbCount: Int { limbs.count }

    /// Whether the value is zero; runs in time that depends only on the limb count.
    public var isZero: Bool {
        var accumulated: UInt64 = 0
        for limb in limbs { accumulated |= limb }
        return accumulated == 0
    }

    /// The number of bits up to and including the most significant set bit (0 for zero); not constant time.
    public var significantBitCount: Int {
        for index in limbs.indices.reversed() where limbs[index] != 0 {
            return index * 64 + (64 - limbs[index].leadingZeroBitCount)
        }
        return 0
    }

    /// The same value in `limbCount` limbs, or nil when a nonzero limb would be dropped.
    public func resized(toLimbCount limbCount: Int) -> BigUInt? {
        precondition(limbCount > 0, "a BigUInt has at least one limb")
        if limbCount >= limbs.count {
            return BigUInt(limbs: limbs + [UInt64](repeating: 0, count: limbCount - limbs.count))
        }
        guard limbs[limbCount...].allSatisfy({ $0 == 0 }) else { return nil }
        return BigUInt(limbs: Array(limbs[..<limbCount]))
    }

    /// The value as exactly `count` big-endian bytes (left-padded with zeros), or nil when it does not fit.
    public func bigEndianBytes(count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        for byteIndex in 0..<(limbs.count * 8) {
            let byte = UInt8(truncatingIfNeeded: limbs[byteIndex / 8] >> UInt64((byteIndex % 8) * 8))
            if byteIndex < count {
                bytes[count - 1 - byteIndex] = byte
            } else if byte != 0 {
                return nil
            }
        }
        return bytes
    }

    /// The value as big-endian bytes with leading zero bytes removed; zero gives an empty array.
    public var minimalBigEndianBytes: [UInt8] {
        let all = bigEndianBytes(count: limbs.count * 8) ?? []
        return Array(all.drop(while: { $0 == 0 }))
    }

    /// The sum, one limb wider than the wider operand so it never overflows.
    public func adding(_ other: BigUInt) -> BigUInt {
        let count = max(limbs.count, other.limbs.count) + 1
        var result = [UInt64](repeating: 0, count: count)
        var carry: UInt64 = 0
        for index in 0..<(count - 1) {
            let left = index < limbs.count ? limbs[index] : 0
            let right = index < other.limbs.count ? other.limbs[index] : 0
            let sum = UInt128(left) &+ UInt128(right) &+ UInt128(carry)
            result[index] = UInt64(truncatingIfNeeded: sum)
            carry = UInt64(truncatingIfNeeded: sum >> 64)
        }
        result[count - 1] = carry
        return BigUInt(limbs: result)
    }

    /// The full product, with as many limbs as both operands together.
    public func multipliedFullWidth(by other: BigUInt) -> BigUInt {
        var result = [UInt64](repeating: 0, count: limbs.count + other.limbs.count)
        for (i, left) in limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, right) in other.limbs.enumerated() {
                let product = UInt128(left) &* UInt128(right) &+ UInt128(result[i + j]) &+ UInt128(carry)
                result[i + j] = UInt64(truncatingIfNeeded: product)
                carry = UInt64(truncatingIfNeeded: product >> 64)
            }
            result[i + other.limbs.count] = carry
        }
        return BigUInt(limbs: result)
    }
}

extension BigUInt: Comparable, Hashable {
    /// Orders by value, whatever the limb counts; not constant time.
    public static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        let count = max(lhs.limbs.count, rhs.limbs.count)
        for index in (0..<count).reversed() {
            let left = index < lhs.limbs.count ? lhs.limbs[index] : 0
            let right = index < rhs.limbs.count ? rhs.limbs[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Compares by value, whatever the limb counts, in time that depends only on the limb counts.
    public static func == (lhs: BigUInt, rhs: BigUInt) -> Bool {
        let count = max(lhs.limbs.count, rhs.limbs.count)
        var difference: UInt64 = 0
        for index in 0..<count {
            let left = index < lhs.limbs.count ? lhs.limbs[index] : 0
            let right = index < rhs.limbs.count ? rhs.limbs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// Hashes by value, so values that are equal with different limb counts hash alike.
    public func hash(into hasher: inout Hasher) {
        var end = limbs.count
        while end > 1 && limbs[end - 1] == 0 { end -= 1 }
        for index in 0..<end { hasher.combine(limbs[index]) }
    }
}
