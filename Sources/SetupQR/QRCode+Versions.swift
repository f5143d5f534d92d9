/// The per-version tables of ISO/IEC 18004:2015 for versions 1 to 10.
extension QRCode {
    /// The centre rows and columns of alignment patterns by version (Annex E, Table E.1); version 1 has none.
    static let alignmentPatternCentres: [[Int]] = [
        [], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    /// The side of a symbol of the given version, in modules.
    static func size(version: Int) -> Int {
        4 * version + 17
    }

    /// Codewords of data and error correction together (Table 1).
    ///
    /// These are the modules left after the function patterns and the format and version areas, divided by 8; the 0
    /// to 7 modules left over are remainder bits.
    static func totalCodewords(version: Int) -> Int {
        let size = size(version: version)
        var modules = size * size
        modules -= 3 * 64  // finder patterns with their separators
        modules -= 2 * (size - 16)  // timing patterns between the separators
        modules -= 2 * 15 + 1  // two copies of the format information and the dark module
        let centres = alignmentPatternCentres[version].count
        if centres > 0 {
            let patterns = centres * centres - 3  // none over the three finder patterns
            modules -= 25 * patterns
            modules += 5 * 2 * (centres - 2)  // alignment patterns lying on a timing pattern share 5 modules
        }
        if version >= 7 {
            modules -= 2 * 18  // two copies of the version information
        }
        return modules / 8
    }
}

extension QRCode.ErrorCorrection {
    /// The two bits that name the level in the format information (Table 12): L 01, M 00, Q 11, H 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }

    /// Error correction codewords in each block, by version (Table 9).
    func codewordsPerBlock(version: Int) -> Int {
        let table: [Int] =
            switch self {
            case .low: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18]
            case .medium: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26]
            case .quartile: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24]
            case .high: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28]
            }
        return table[version - 1]
    }

    /// The number of error correction blocks, by version (Table 9).
    func blockCount(version: Int) -> Int {
        let table: [Int] =
            switch self {
            case .low: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4]
            case .medium: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5]
            case .quartile: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8]
            case .high: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8]
            }
        return table[version - 1]
    }

    /// Data codewords a symbol of this version holds at this level.
    func dataCodewords(version: Int) -> Int {
        QRCode.totalCodewords(version: version) - codewordsPerBlock(version: version) * blockCount(version: version)
    }
}
