/// Montgomery arithmetic on raw limb buffers (least significant limb first).
///
/// Nothing here allocates, checks bounds, or branches on limb values: every loop runs a number of times fixed by
/// the limb count, and choices between two results are made with masks. Callers own the buffers and their sizes.
enum MontgomeryKernel {
    /// Writes `a·b·R⁻¹ mod N` to `result`, where R = 2^(64·count).
    ///
    /// Needs `a·b < N·R` (true when both are below N, or one is below R and the other below N). `result` may be
    /// `a` or `b`; `scratch` needs `count + 2` limbs and must not overlap the others. CIOS method (Koç, Acar and
    /// Kaliski, 1996), with a final subtraction chosen by mask.
    @inline(__always)
    static func multiply(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        _ b: UnsafePointer<UInt64>,
        modulus n: UnsafePointer<UInt64>,
        inverse: UInt64,
        count: Int,
        scratch t: UnsafeMutablePointer<UInt64>
    ) {
        t.update(repeating: 0, count: count + 2)
        for i in 0..<count {
            let ai = UInt128(a[i])
            var carry: UInt64 = 0
            for j in 0..<count {
                let product = ai &* UInt128(b[j]) &+ UInt128(t[j]) &+ UInt128(carry)
                t[j] = UInt64(truncatingIfNeeded: product)
                carry = UInt64(truncatingIfNeeded: product &>> 64)
            }
            var sum = UInt128(t[count]) &+ UInt128(carry)
            t[count] = UInt64(truncatingIfNeeded: sum)
            t[count + 1] = UInt64(truncatingIfNeeded: sum &>> 64)

            let m = UInt128(t[0] &* inverse)
            var reduction = m &* UInt128(n[0]) &+ UInt128(t[0])
            carry = UInt64(truncatingIfNeeded: reduction &>> 64)
            for j in 1..<count {
                reduction = m &* UInt128(n[j]) &+ UInt128(t[j]) &+ UInt128(carry)
                t[j - 1] = UInt64(truncatingIfNeeded: reduction)
                carry = UInt64(truncatingIfNeeded: reduction &>> 64)
            }
            sum = UInt128(t[count]) &+ UInt128(carry)
            t[count - 1] = UInt64(truncatingIfNeeded: sum)
            t[count] = t[count + 1] &+ UInt64(truncatingIfNeeded: sum &>> 64)
        }
        subtractModulusIfNotBelow(result, t, modulus: n, count: count)
    }

    /// Writes `a²·R⁻¹ mod N` to `result` for `a < N`, about a quarter faster than `multiply(result, a, a, …)`.
    ///
    /// Squares into `2·count` limbs, taking each cross product once and doubling, then runs Montgomery reduction
    /// over the whole product. `result` may be `a`; `scratch` needs `2·count + 1` limbs and must not overlap.
    @inline(__always)
    static func square(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        modulus n: UnsafePointer<UInt64>,
        inverse: UInt64,
        count: Int,
        scratch p: UnsafeMutablePointer<UInt64>
    ) {
        p.update(repeating: 0, count: 2 * count + 1)
        // The cross products a[i]·a[j] for i < j.
        for i in 0..<(count - 1) {
            let ai = UInt128(a[i])
            var carry: UInt64 = 0
            for j in (i + 1)..<count {
                let product = ai &* UInt128(a[j]) &+ UInt128(p[i + j]) &+ UInt128(carry)
                p[i + j] = UInt64(truncatingIfNeeded: product)
                carry = UInt64(truncatingIfNeeded: product &>> 64)
            }
            p[i + count] = carry
        }
        // Double them, then add the squares a[i]² on the diagonal.
        var shiftedOut: UInt64 = 0
        for k in 0..<(2 * count) {
            let limb = p[k]
            p[k] = (limb &<< 1) | shiftedOut
            shiftedOut = limb &>> 63
        }
        var carry: UInt64 = 0
        for i in 0..<count {
            let square = UInt128(a[i]) &* UInt128(a[i])
            let low = UInt128(p[2 * i]) &+ (square & UInt128(UInt64.max)) &+ UInt128(carry)
            p[2 * i] = UInt64(truncatingIfNeeded: low)
            let high = UInt128(p[2 * i + 1]) &+ (square &>> 64) &+ (low &>> 64)
            p[2 * i + 1] = UInt64(truncatingIfNeeded: high)
            carry = UInt64(truncatingIfNeeded: high &>> 64)
        }
        // Montgomery reduction: clear one low limb per step; `extra` carries into the limb above the window.
        var extra: UInt64 = 0
        for i in 0..<count {
            let m = UInt128(p[i] &* inverse)
            var reductionCarry: UInt64 = 0
            for j in 0..<count {
                let sum = m &* UInt128(n[j]) &+ UInt128(p[i + j]) &+ UInt128(reductionCarry)
                p[i + j] = UInt64(truncatingIfNeeded: sum)
                reductionCarry = UInt64(truncatingIfNeeded: sum &>> 64)
            }
            let top = UInt128(p[i + count]) &+ UInt128(reductionCarry) &+ UInt128(extra)
            p[i + count] = UInt64(truncatingIfNeeded: top)
            extra = UInt64(truncatingIfNeeded: top &>> 64)
        }
        p[2 * count] = extra
        subtractModulusIfNotBelow(result, p + count, modulus: n, count: count)
    }

    /// Writes `t mod N` to `result`, where `t` has `count + 1` limbs and is below 2N; chosen by mask.
    @inline(__always)
    static func subtractModulusIfNotBelow(
        _ result: UnsafeMutablePointer<UInt64>,
        _ t: UnsafePointer<UInt64>,
        modulus n: UnsafePointer<UInt64>,
        count: Int
    ) {
        var borrow: UInt64 = 0
        for j in 0..<count {
            let difference = UInt128(t[j]) &- UInt128(n[j]) &- UInt128(borrow)
            result[j] = UInt64(truncatingIfNeeded: difference)
            borrow = UInt64(truncatingIfNeeded: difference &>> 127)
        }
        // t < N exactly when the subtraction borrows out of the top limb.
        let keepT = valueBarrier(0 &- ((t[count] &- borrow) &>> 63))
        for j in 0..<count {
            result[j] = (t[j] & keepT) | (result[j] & ~keepT)
        }
    }

    /// Writes `(a + b) mod N` to `result` for `a, b < N`; `result` may be `a` or `b`.
    @inline(__always)
    static func add(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        _ b: UnsafePointer<UInt64>,
        modulus n: UnsafePointer<UInt64>,
        count: Int,
        scratch t: UnsafeMutablePointer<UInt64>
    ) {
        var carry: UInt64 = 0
        for j in 0..<count {
            let sum = UInt128(a[j]) &+ UInt128(b[j]) &+ UInt128(carry)
            t[j] = UInt64(truncatingIfNeeded: sum)
            carry = UInt64(truncatingIfNeeded: sum &>> 64)
        }
        t[count] = carry
        subtractModulusIfNotBelow(result, t, modulus: n, count: count)
    }

    /// Writes `(a − b) mod N` to `result` for `a, b < N`; `result` may be `a` or `b`.
    @inline(__always)
    static func subtract(
        _ result: UnsafeMutablePointer<UInt64>,
        _ a: UnsafePointer<UInt64>,
        _ b: UnsafePointer<UInt64>,
        modulus n: UnsafePointer<UInt64>,
        count: Int
    ) {
        var borrow: UInt64 = 0
        for j in 0..<count {
            let difference = UInt128(a[j]) &- UInt128(b[j]) &- UInt128(borrow)
            result[j] = UInt64(truncatingIfNeeded: difference)
            borrow = UInt64(truncatingIfNeeded: difference &>> 127)
        }
        // Add N back when the subtraction went below zero: N masked to zero otherwise.
        let addMask = valueBarrier(0 &- borrow)
        var carry: UInt64 = 0
        for j in 0..<count {
            let sum = UInt128(result[j]) &+ UInt128(n[j] & addMask) &+ UInt128(carry)
            result[j] = UInt64(truncatingIfNeeded: sum)
            carry = UInt64(truncatingIfNeeded: sum &>> 64)
        }
    }

    /// Copies entry `index` of a table of `entryCount` entries of `count` limbs into `result`, reading every entry.
    ///
    /// The memory touched and the instructions run do not depend on `index`.
    @inline(__always)
    static func select(
        _ result: UnsafeMutablePointer<UInt64>,
        from table: UnsafePointer<UInt64>,
        entryCount: Int,
        index: UInt64,
        count: Int
    ) {
        result.update(repeating: 0, count: count)
        for entry in 0..<entryCount {
            // All ones when entry == index, else zero: (d − 1) has its top bit set only for d == 0.
            let difference = UInt64(truncatingIfNeeded: entry) ^ index
            let mask = valueBarrier(0 &- ((difference &- 1) & ~difference) &>> 63)
            let row = table + entry * count
            for j in 0..<count {
                result[j] |= row[j] & mask
            }
        }
    }

    /// The window of `width` bits of `exponent` starting at bit `windowIndex · width`; `width` divides 64.
    @inline(__always)
    static func window(
        of exponent: UnsafePointer<UInt64>,
        at windowIndex: Int,
        width: Int
    ) -> UInt64 {
        let bit = windowIndex * width
        return (exponent[bit / 64] &>> UInt64(bit % 64)) & ((1 &<< UInt64(width)) &- 1)
    }
}

/// Returns `value` unchanged, hidden from the optimiser.
///
/// A mask computed from secret data must stay data: without this, LLVM recognises `(a & m) | (b & ~m)` for a mask
/// it can prove is all zeros or all ones and turns it back into a branch or a load from a chosen address (seen in
/// the disassembly of `select` and of the final subtraction). `@_optimize(none)` keeps LLVM from looking inside,
/// like `value_barrier_w` in BoringSSL or `black_box` in Rust. One call per mask, not per limb.
@_optimize(none)
@inline(never)
func valueBarrier(_ value: UInt64) -> UInt64 {
    value
}
