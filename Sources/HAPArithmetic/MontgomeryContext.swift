/// Modular arithmetic for one odd modulus N, with constants computed once (R² mod N and −N⁻¹ mod 2⁶⁴).
///
/// R is 2^(64·limbCount). Results are `BigUInt`s with `limbCount` limbs, below N. Unless a method says otherwise,
/// operands must already be below N; that is not checked, because checking would not run in constant time.
/// Multiplication, exponentiation and reduction run in time that depends only on limb counts, not on values.
public final class MontgomeryContext: @unchecked Sendable {
    // @unchecked: `constants` is written only in `init` and freed in `deinit`; every other use only reads it.

    /// The modulus N.
    public let modulus: BigUInt
    /// The number of limbs of N and of every result.
    public let limbCount: Int
    /// −N⁻¹ mod 2⁶⁴.
    let inverse: UInt64
    /// N, R² mod N, R mod N (one in Montgomery form) and plain one, `limbCount` limbs each, in that order.
    private let constants: UnsafeMutablePointer<UInt64>

    /// Prepares arithmetic modulo `modulus`, or returns nil unless it is odd and greater than one.
    public init?(modulus: BigUInt) {
        let significantLimbs = (modulus.significantBitCount + 63) / 64
        guard modulus.limbs[0] & 1 == 1, modulus.significantBitCount > 1,
            let trimmed = modulus.resized(toLimbCount: significantLimbs)
        else { return nil }
        let count = significantLimbs
        self.modulus = trimmed
        self.limbCount = count

        // Newton's iteration doubles the correct low bits each step: 3 bits (N·N ≡ 1 mod 8) to 96 in five.
        let low = trimmed.limbs[0]
        var inverseOfLow = low
        for _ in 0..<5 { inverseOfLow = inverseOfLow &* (2 &- low &* inverseOfLow) }
        self.inverse = 0 &- inverseOfLow

        constants = .allocate(capacity: 4 * count)
        constants.initialize(repeating: 0, count: 4 * count)
        for j in 0..<count { constants[j] = trimmed.limbs[j] }
        constants[3 * count] = 1
        // R mod N and R² mod N by doubling 1, reducing after each step; done once, so speed does not matter.
        var value = [UInt64](repeating: 0, count: count)
        value[0] = 1
        for step in 1...(128 * count) {
            value = Self.doubled(value, modulus: trimmed.limbs)
            if step == 64 * count {
                for j in 0..<count { constants[2 * count + j] = value[j] }
            }
        }
        for j in 0..<count { constants[count + j] = value[j] }
    }

    deinit {
        constants.deallocate()
    }

    /// `2·value mod modulus` for `value < modulus`; only used to set up the constants.
    private static func doubled(_ value: [UInt64], modulus: [UInt64]) -> [UInt64] {
        var shifted = value
        var carry: UInt64 = 0
        for j in shifted.indices {
            let limb = shifted[j]
            shifted[j] = (limb &<< 1) | carry
            carry = limb &>> 63
        }
        var difference = shifted
        var borrow: UInt64 = 0
        for j in difference.indices {
            let wide = UInt128(shifted[j]) &- UInt128(modulus[j]) &- UInt128(borrow)
            difference[j] = UInt64(truncatingIfNeeded: wide)
            borrow = UInt64(truncatingIfNeeded: wide &>> 127)
        }
        return carry == 1 || borrow == 0 ? difference : shifted
    }

    /// N, `limbCount` limbs.
    var modulusPointer: UnsafePointer<UInt64> { UnsafePointer(constants) }
    /// R² mod N, `limbCount` limbs.
    var rSquaredPointer: UnsafePointer<UInt64> { UnsafePointer(constants + limbCount) }
    /// R mod N, one in Montgomery form, `limbCount` limbs.
    var montgomeryOnePointer: UnsafePointer<UInt64> { UnsafePointer(constants + 2 * limbCount) }
    /// Plain one, `limbCount` limbs; multiplying by it leaves Montgomery form.
    var plainOnePointer: UnsafePointer<UInt64> { UnsafePointer(constants + 3 * limbCount) }

    /// Writes `a·b·R⁻¹ mod N` to `result` (which may be `a` or `b`), using `limbCount + 2` limbs of `scratch`.
    @inline(__always)
    func montgomeryMultiply(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        _ b: UnsafePointer<UInt64>,
        scratch: UnsafeMutablePointer<UInt64>
    ) {
        MontgomeryKernel.multiply(
            result,
            a,
            b,
            modulus: modulusPointer,
            inverse: inverse,
            count: limbCount,
            scratch: scratch
        )
    }

    /// Writes `a²·R⁻¹ mod N` to `result` (which may be `a`), using `2·limbCount + 1` limbs of `scratch`.
    @inline(__always)
    func montgomerySquare(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        scratch: UnsafeMutablePointer<UInt64>
    ) {
        MontgomeryKernel.square(
            result,
            a,
            modulus: modulusPointer,
            inverse: inverse,
            count: limbCount,
            scratch: scratch
        )
    }

    /// `a²·R⁻¹ mod N` by the dedicated squaring, for `a < N`; for tests.
    func montgomerySquare(_ a: BigUInt) -> BigUInt {
        let limbs = limbs(of: a)
        return makeResult { result, _ in
            withScratch(limbs: 2 * limbCount + 1) { scratch in
                limbs.withLimbPointer { a in montgomerySquare(result, a, scratch: scratch) }
            }
        }
    }

    /// `a·b·R⁻¹ mod N`, the Montgomery product, for `a·b < N·R`.
    public func montgomeryProduct(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let left = limbs(of: a)
        let right = limbs(of: b)
        return makeResult { result, scratch in
            left.withLimbPointer { a in
                right.withLimbPointer { b in montgomeryMultiply(result, a, b, scratch: scratch) }
            }
        }
    }

    /// `value mod N` for a value of any limb count, in time that depends only on the limb counts.
    ///
    /// Works through the value `limbCount` limbs at a time from the top, in Montgomery form:
    /// acc·R ← (acc·R)·R²·R⁻¹ + chunk·R²·R⁻¹, then one Montgomery product with plain one leaves that form.
    public func reduce(_ value: BigUInt) -> BigUInt {
        let count = limbCount
        let chunkCount = (value.limbCount + count - 1) / count
        let source = value.limbs
        return makeResult { result, scratch in
            withScratch(limbs: count) { chunk in
                for chunkIndex in (0..<chunkCount).reversed() {
                    montgomeryMultiply(result, result, rSquaredPointer, scratch: scratch)
                    for j in 0..<count {
                        let index = chunkIndex * count + j
                        chunk[j] = index < source.count ? source[index] : 0
                    }
                    montgomeryMultiply(chunk, chunk, rSquaredPointer, scratch: scratch)
                    MontgomeryKernel.add(
                        result,
                        result,
                        chunk,
                        modulus: modulusPointer,
                        count: count,
                        scratch: scratch
                    )
                }
                montgomeryMultiply(result, result, plainOnePointer, scratch: scratch)
            }
        }
    }

    /// `(a + b) mod N`.
    public func add(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let left = limbs(of: a)
        let right = limbs(of: b)
        return makeResult { result, scratch in
            left.withLimbPointer { a in
                right.withLimbPointer { b in
                    MontgomeryKernel.add(
                        result,
                        a,
                        b,
                        modulus: modulusPointer,
                        count: limbCount,
                        scratch: scratch
                    )
                }
            }
        }
    }

    /// `(a − b) mod N`.
    public func subtract(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let left = limbs(of: a)
        let right = limbs(of: b)
        return makeResult { result, _ in
            left.withLimbPointer { a in
                right.withLimbPointer { b in
                    MontgomeryKernel.subtract(result, a, b, modulus: modulusPointer, count: limbCount)
                }
            }
        }
    }

    /// `(a · b) mod N`.
    public func multiply(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        let left = limbs(of: a)
        let right = limbs(of: b)
        return makeResult { result, scratch in
            left.withLimbPointer { a in
                right.withLimbPointer { b in
                    montgomeryMultiply(result, a, b, scratch: scratch)
                    montgomeryMultiply(result, result, rSquaredPointer, scratch: scratch)
                }
            }
        }
    }

    /// The limbs of an operand, widened to `limbCount` limbs, or reduced first when it has more.
    func limbs(of value: BigUInt) -> [UInt64] {
        if value.limbCount == limbCount { return value.limbs }
        if value.limbCount < limbCount, let widened = value.resized(toLimbCount: limbCount) { return widened.limbs }
        return reduce(value).limbs
    }

    /// Runs `body` with a zeroed result of `limbCount` limbs and `limbCount + 2` limbs of scratch.
    @inline(__always)
    func makeResult(
        _ body: (_ result: UnsafeMutablePointer<UInt64>, _ scratch: UnsafeMutablePointer<UInt64>) -> Void
    ) -> BigUInt {
        let count = limbCount
        let limbs = [UInt64](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            guard let result = buffer.baseAddress else { preconditionFailure("a limb buffer is never empty") }
            result.initialize(repeating: 0, count: count)
            withScratch(limbs: count + 2) { scratch in body(result, scratch) }
            initializedCount = count
        }
        return BigUInt(limbs: limbs)
    }
}

/// Runs `body` with `limbs` zeroed limbs of temporary storage (on the stack when small enough).
@inline(__always)
func withScratch<Result>(limbs: Int, _ body: (UnsafeMutablePointer<UInt64>) -> Result) -> Result {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: limbs) { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("scratch space is never empty") }
        base.initialize(repeating: 0, count: limbs)
        return body(base)
    }
}

extension Array where Element == UInt64 {
    /// Runs `body` with a pointer to the limbs, which are never empty.
    @inline(__always)
    func withLimbPointer<Result>(_ body: (UnsafePointer<UInt64>) -> Result) -> Result {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a limb array is never empty") }
            return body(base)
        }
    }
}
