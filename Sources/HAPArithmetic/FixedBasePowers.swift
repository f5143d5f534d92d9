/// Precomputed powers of one base, for raising it to many exponents quickly (fixed-base windowing).
///
/// For each 4-bit window i of the exponent the table holds base^(j·16ⁱ) for j in 0…15, so a power is one
/// Montgomery product per window and no squaring: about 5 times fewer products than `MontgomeryContext.power`.
/// The table costs 15 products per window to build and `limbCount · 8 · 16` bytes per window to keep (768 KiB
/// for a 3072-bit modulus and 512-bit exponents). Each lookup reads the window's whole row, so the time and the
/// memory touched depend only on the exponent's limb count.
public final class FixedBasePowers: @unchecked Sendable {
    // @unchecked: `table` is written only in `init` and freed in `deinit`; every other use only reads it.

    /// The arithmetic the powers are taken in.
    public let context: MontgomeryContext
    /// The base, below the modulus.
    public let base: BigUInt
    /// The most exponent limbs the table covers; longer exponents fall back to `MontgomeryContext.power`.
    public let maximumExponentLimbCount: Int
    /// Rows of 16 entries of `limbCount` limbs, in Montgomery form, one row per 4-bit window.
    private let table: UnsafeMutablePointer<UInt64>

    /// Builds the table for exponents of up to `maximumExponentBitCount` bits (rounded up to whole limbs).
    public init(base: BigUInt, context: MontgomeryContext, maximumExponentBitCount: Int) {
        precondition(maximumExponentBitCount > 0, "a fixed-base table covers at least one exponent bit")
        let count = context.limbCount
        let entryCount = MontgomeryContext.windowEntryCount
        let limbCount = (maximumExponentBitCount + 63) / 64
        let windowCount = limbCount * 64 / MontgomeryContext.windowWidth
        let reducedBase = context.reduce(base)
        self.context = context
        self.base = reducedBase
        self.maximumExponentLimbCount = limbCount
        table = .allocate(capacity: windowCount * entryCount * count)
        table.initialize(repeating: 0, count: windowCount * entryCount * count)
        let table = self.table
        withScratch(limbs: count + 2) { scratch in
            reducedBase.limbs.withLimbPointer { base in
                context.montgomeryMultiply(table + count, base, context.rSquaredPointer, scratch: scratch)
            }
            for window in 0..<windowCount {
                let row = table + window * entryCount * count
                row.update(from: context.montgomeryOnePointer, count: count)
                if window > 0 {
                    // base^(16ⁱ) = base^(15·16ⁱ⁻¹) · base^(16ⁱ⁻¹), from the row before.
                    let previous = row - entryCount * count
                    context.montgomeryMultiply(
                        row + count,
                        previous + (entryCount - 1) * count,
                        previous + count,
                        scratch: scratch
                    )
                }
                for entry in 2..<entryCount {
                    context.montgomeryMultiply(
                        row + entry * count,
                        row + (entry - 1) * count,
                        row + count,
                        scratch: scratch
                    )
                }
            }
        }
    }

    deinit {
        table.deallocate()
    }

    /// `base^exponent mod N`, in time that depends only on the exponent's limb count.
    public func power(exponent: BigUInt) -> BigUInt {
        guard exponent.limbCount <= maximumExponentLimbCount else {
            return context.power(base, exponent: exponent)
        }
        let count = context.limbCount
        let entryCount = MontgomeryContext.windowEntryCount
        let width = MontgomeryContext.windowWidth
        let windowCount = exponent.limbCount * 64 / width
        let table = self.table
        return context.makeResult { result, scratch in
            withScratch(limbs: count) { selected in
                exponent.limbs.withLimbPointer { exponent in
                    result.update(from: context.montgomeryOnePointer, count: count)
                    for window in 0..<windowCount {
                        let digit = MontgomeryKernel.window(of: exponent, at: window, width: width)
                        MontgomeryKernel.select(
                            selected,
                            from: table + window * entryCount * count,
                            entryCount: entryCount,
                            index: digit,
                            count: count
                        )
                        context.montgomeryMultiply(result, result, selected, scratch: scratch)
                    }
                }
                context.montgomeryMultiply(result, result, context.plainOnePointer, scratch: scratch)
            }
        }
    }
}
