import HAPArithmetic
import TestSupport

extension SplitMix64 {
    /// `count` random limbs.
    mutating func limbs(_ count: Int) -> [UInt64] {
        (0..<count).map { _ in next() }
    }

    /// A random odd modulus of `count` limbs with its top bit set or, when `fullTop` is false, a random top limb.
    mutating func oddModulus(limbCount count: Int, fullTop: Bool = true) -> [UInt64] {
        var limbs = limbs(count)
        limbs[0] |= 1
        if fullTop { limbs[count - 1] |= 1 << 63 } else if limbs[count - 1] == 0 { limbs[count - 1] = 1 }
        if count == 1 && limbs[0] == 1 { limbs[0] = 3 }
        return limbs
    }

    /// A random value below `modulus`, with as many limbs.
    mutating func value(below modulus: [UInt64]) -> [UInt64] {
        Reference.mod(limbs(modulus.count), modulus)
    }
}

/// Slow, obviously correct arithmetic on little-endian limb arrays, to check the fast code against.
enum Reference {
    static func isLess(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for index in (0..<max(a.count, b.count)).reversed() {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// `a − b` for `a ≥ b`, with `a`'s limb count.
    static func subtract(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result = a
        var borrow = false
        for index in result.indices {
            let right = index < b.count ? b[index] : 0
            let (first, overflowFirst) = result[index].subtractingReportingOverflow(right)
            let (second, overflowSecond) = first.subtractingReportingOverflow(borrow ? 1 : 0)
            result[index] = second
            borrow = overflowFirst || overflowSecond
        }
        return result
    }

    /// `a mod n` by binary long division, one bit at a time; the result has `n`'s limb count.
    static func mod(_ a: [UInt64], _ n: [UInt64]) -> [UInt64] {
        var remainder = [UInt64](repeating: 0, count: n.count + 1)
        for bit in (0..<(a.count * 64)).reversed() {
            var carry = (a[bit / 64] >> UInt64(bit % 64)) & 1
            for index in remainder.indices {
                let limb = remainder[index]
                remainder[index] = (limb << 1) | carry
                carry = limb >> 63
            }
            if !isLess(remainder, n) { remainder = subtract(remainder, n) }
        }
        return Array(remainder.prefix(n.count))
    }

    /// The full product, schoolbook.
    static func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: a.count + b.count)
        for i in a.indices {
            var carry: UInt64 = 0
            for j in b.indices {
                let (high, low) = a[i].multipliedFullWidth(by: b[j])
                let (sum1, overflow1) = low.addingReportingOverflow(result[i + j])
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                result[i + j] = sum2
                carry = high + (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
            }
            result[i + b.count] = carry
        }
        return result
    }

    static func multiplyMod(_ a: [UInt64], _ b: [UInt64], _ n: [UInt64]) -> [UInt64] {
        mod(multiply(a, b), n)
    }

    /// `base^exponent mod n`, right-to-left square and multiply.
    static func power(_ base: [UInt64], _ exponent: [UInt64], _ n: [UInt64]) -> [UInt64] {
        var result = mod([1], n)
        var square = mod(base, n)
        for bit in 0..<(exponent.count * 64) {
            if (exponent[bit / 64] >> UInt64(bit % 64)) & 1 == 1 { result = multiplyMod(result, square, n) }
            square = multiplyMod(square, square, n)
        }
        return result
    }
}
