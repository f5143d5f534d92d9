extension MontgomeryContext {
    /// Bits of exponent consumed per table lookup; 4 divides 64, so a window never spans two limbs.
    static let windowWidth = 4
    /// Entries in a window table: the powers 0 through 15.
    static let windowEntryCount = 1 << windowWidth

    /// `base^exponent mod N`, in time that depends only on the limb counts of `base` and `exponent`.
    ///
    /// Fixed 4-bit windows from the top of the exponent, with the table of base⁰…base¹⁵ read whole at every
    /// window, so neither the branches nor the memory touched depend on exponent bits. Leading zero limbs of the
    /// exponent cost as much as any others: callers pick the exponent's limb count, not its value.
    public func power(_ base: BigUInt, exponent: BigUInt) -> BigUInt {
        let count = limbCount
        let entryCount = Self.windowEntryCount
        let width = Self.windowWidth
        let baseLimbs = limbs(of: base)
        let exponentLimbs = exponent.limbs
        let windowCount = exponentLimbs.count * 64 / width
        return makeResult { result, scratch in
            withScratch(limbs: (entryCount + 3) * count + 1) { storage in
                let table = storage
                let selected = storage + entryCount * count
                let squareScratch = storage + (entryCount + 1) * count
                // table[i] = baseⁱ·R mod N.
                table.update(from: montgomeryOnePointer, count: count)
                baseLimbs.withLimbPointer { base in
                    montgomeryMultiply(table + count, base, rSquaredPointer, scratch: scratch)
                }
                for entry in 2..<entryCount {
                    montgomeryMultiply(
                        table + entry * count,
                        table + (entry - 1) * count,
                        table + count,
                        scratch: scratch
                    )
                }
                exponentLimbs.withLimbPointer { exponent in
                    result.update(from: montgomeryOnePointer, count: count)
                    for windowIndex in (0..<windowCount).reversed() {
                        for _ in 0..<width {
                            montgomerySquare(result, result, scratch: squareScratch)
                        }
                        let digit = MontgomeryKernel.window(of: exponent, at: windowIndex, width: width)
                        MontgomeryKernel.select(
                            selected,
                            from: table,
                            entryCount: entryCount,
                            index: digit,
                            count: count
                        )
                        montgomeryMultiply(result, result, selected, scratch: scratch)
                    }
                }
                montgomeryMultiply(result, result, plainOnePointer, scratch: scratch)
            }
        }
    }
}
