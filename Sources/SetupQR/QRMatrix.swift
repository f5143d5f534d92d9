/// A symbol being built: its modules, and which of them belong to function patterns (ISO/IEC 18004:2015 §7.7–7.9).
///
/// Coordinates are column `x` and row `y`, from the top left.
struct QRMatrix: Sendable {
    /// The number of modules on each side.
    let size: Int
    /// Row-major, `true` for dark.
    private(set) var modules: [Bool]
    /// Row-major, `true` for modules that data and masks leave alone.
    private var isFunction: [Bool]

    /// A symbol with its function patterns drawn and its format and version areas reserved.
    init(version: Int) {
        size = QRCode.size(version: version)
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)

        // §7.3.5 timing patterns first; the finder patterns then overwrite their ends.
        for index in 0..<size {
            setFunction(x: 6, y: index, dark: index % 2 == 0)
            setFunction(x: index, y: 6, dark: index % 2 == 0)
        }
        // §7.3.2, §7.3.3: finder patterns with their light separators.
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            drawSquares(centreX: x, centreY: y, radius: 4) { distance in distance != 2 && distance != 4 }
        }
        // §7.3.6: alignment patterns, except where they would cover a finder pattern.
        let centres = QRCode.alignmentPatternCentres[version]
        for (row, y) in centres.enumerated() {
            for (column, x) in centres.enumerated() {
                let last = centres.count - 1
                let overFinder =
                    (row == 0 && column == 0) || (row == 0 && column == last) || (row == last && column == 0)
                if !overFinder {
                    drawSquares(centreX: x, centreY: y, radius: 2) { distance in distance != 1 }
                }
            }
        }
        // Reserve the format areas (drawn again once the mask is known) and draw the version information.
        drawFormat(errorCorrection: .medium, mask: .pattern0)
        if version >= 7 {
            drawVersion(version)
        }
    }

    /// Whether the module is dark.
    subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Draws concentric squares around a centre; `isDark` gets each module's Chebyshev distance from it.
    private mutating func drawSquares(centreX: Int, centreY: Int, radius: Int, isDark: (Int) -> Bool) {
        for dy in -radius...radius {
            for dx in -radius...radius {
                let x = centreX + dx
                let y = centreY + dy
                if x >= 0, x < size, y >= 0, y < size {
                    setFunction(x: x, y: y, dark: isDark(max(abs(dx), abs(dy))))
                }
            }
        }
    }

    /// Draws both copies of the format information (§7.9.1) and the dark module at (8, 4V + 9).
    mutating func drawFormat(errorCorrection: QRCode.ErrorCorrection, mask: QRCode.Mask) {
        let bits = Self.formatBits(errorCorrection: errorCorrection, mask: mask)
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        // Around the top-left finder: bits 0–7 down column 8 (skipping the timing row), 8–14 left along row 8.
        for index in 0..<6 {
            setFunction(x: 8, y: index, dark: bit(index))
        }
        setFunction(x: 8, y: 7, dark: bit(6))
        setFunction(x: 8, y: 8, dark: bit(7))
        setFunction(x: 7, y: 8, dark: bit(8))
        for index in 9..<15 {
            setFunction(x: 14 - index, y: 8, dark: bit(index))
        }
        // The second copy: bits 0–7 along row 8 from the right edge, 8–14 down column 8 to the bottom edge.
        for index in 0..<8 {
            setFunction(x: size - 1 - index, y: 8, dark: bit(index))
        }
        for index in 8..<15 {
            setFunction(x: 8, y: size - 15 + index, dark: bit(index))
        }
        setFunction(x: 8, y: size - 8, dark: true)
    }

    /// Draws both copies of the version information (§7.10), beside the top-right and bottom-left finders.
    private mutating func drawVersion(_ version: Int) {
        let bits = Self.versionBits(version)
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let near = index / 3
            let far = size - 11 + index % 3
            setFunction(x: far, y: near, dark: dark)
            setFunction(x: near, y: far, dark: dark)
        }
    }

    /// The 15 format bits: level and mask, a BCH(15,5) remainder, XORed with 101010000010010 (Annex C).
    static func formatBits(errorCorrection: QRCode.ErrorCorrection, mask: QRCode.Mask) -> Int {
        let data = errorCorrection.formatBits << 3 | mask.rawValue
        var remainder = data
        for _ in 0..<10 {
            remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537)
        }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The 18 version bits: the version and a BCH(18,6) remainder (Annex D).
    static func versionBits(_ version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 {
            remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25)
        }
        return version << 12 | remainder
    }

    /// Places codewords, most significant bit first, in two-column strips from the bottom right (§7.7.3).
    ///
    /// Modules left over after the last codeword are the remainder bits and stay light.
    mutating func placeData(_ codewords: [UInt8]) {
        var bitIndex = 0
        let bitCount = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 {
                right = 5  // the vertical timing pattern takes a whole column
            }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] && bitIndex < bitCount {
                    modules[y * size + x] = (codewords[bitIndex / 8] >> (7 - bitIndex % 8)) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
        precondition(bitIndex == bitCount, "the codewords do not fit the version")
    }

    /// XORs the mask over every module outside the function patterns; applying it twice undoes it.
    mutating func apply(_ mask: QRCode.Mask) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && mask.inverts(x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }

    /// The mask with the lowest penalty score once applied with its format information; the first on a tie.
    func bestMask(errorCorrection: QRCode.ErrorCorrection) -> QRCode.Mask {
        var best = QRCode.Mask.pattern0
        var bestScore = Int.max
        for mask in QRCode.Mask.allCases {
            var candidate = self
            candidate.apply(mask)
            candidate.drawFormat(errorCorrection: errorCorrection, mask: mask)
            let score = candidate.penalty
            if score < bestScore {
                best = mask
                bestScore = score
            }
        }
        return best
    }
}

extension QRCode.Mask {
    /// Whether the mask darkens-or-lightens the module at column `x`, row `y` (Table 10, i = row, j = column).
    func inverts(x: Int, y: Int) -> Bool {
        switch self {
        case .pattern0: (y + x) % 2 == 0
        case .pattern1: y % 2 == 0
        case .pattern2: x % 3 == 0
        case .pattern3: (y + x) % 3 == 0
        case .pattern4: (y / 2 + x / 3) % 2 == 0
        case .pattern5: (y * x) % 2 + (y * x) % 3 == 0
        case .pattern6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        case .pattern7: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        }
    }
}
