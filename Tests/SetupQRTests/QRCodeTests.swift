import Testing

@testable import SetupQR

/// ISO/IEC 18004:2015 symbols for the setup payload of hap-protocol.md §8.1.
struct QRCodeTests {
    static let setupURI = "X-HM://0071WK4SM7OSX"

    /// The URI at level M with mask 3, from the Python `qrcode` package 8.2
    /// (`QRData(uri, mode=MODE_ALPHA_NUM)`, `ERROR_CORRECT_M`, `mask_pattern=3`, `border=0`); it scans with zbarimg.
    static let setupURIAtMediumMask3 = [
        "111111101011101111111",
        "100000101110101000001",
        "101110100111101011101",
        "101110101010101011101",
        "101110100011001011101",
        "100000100010001000001",
        "111111101010101111111",
        "000000001001100000000",
        "101101110100101001011",
        "100010001101101101101",
        "000011110111011001111",
        "101111011000111100001",
        "110101110010001000011",
        "000000001010110000011",
        "111111101110011011100",
        "100000101101100101001",
        "101110100000000010100",
        "101110101011010100110",
        "101110101010101001100",
        "100000100010000000100",
        "111111101100010101110",
    ]

    /// Format information for each level and mask, bit 14 first (Annex C, Table C.1).
    static let formatTable: [(QRCode.ErrorCorrection, [String])] = [
        (
            .low,
            [
                "111011111000100", "111001011110011", "111110110101010", "111100010011101",
                "110011000101111", "110001100011000", "110110001000001", "110100101110110",
            ]
        ),
        (
            .medium,
            [
                "101010000010010", "101000100100101", "101111001111100", "101101101001011",
                "100010111111001", "100000011001110", "100111110010111", "100101010100000",
            ]
        ),
        (
            .quartile,
            [
                "011010101011111", "011000001101000", "011111100110001", "011101000000110",
                "010010010110100", "010000110000011", "010111011011010", "010101111101101",
            ]
        ),
        (
            .high,
            [
                "001011010001001", "001001110111110", "001110011100111", "001100111010000",
                "000011101100010", "000001001010101", "000110100001100", "000100000111011",
            ]
        ),
    ]

    /// The modules as rows of 0 and 1.
    static func rows(of code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { x in code[x, y] ? "1" : "0" }) }
    }

    /// One symbol of each version from 1 to 10 at level L, in byte mode.
    static func symbolsOfEveryVersion() throws -> [QRCode] {
        // Byte capacity at level L (Table 7), so each text just fills its version.
        let capacities = [17, 32, 53, 78, 106, 134, 154, 192, 230, 271]
        return try capacities.map { try QRCode(encoding: String(repeating: "h", count: $0), errorCorrection: .low) }
    }

    @Test func matchesAnIndependentEncoderModuleForModule() throws {
        let code = try QRCode(encoding: Self.setupURI, errorCorrection: .medium, mask: .pattern3)
        #expect(code.version == 1)
        #expect(code.mode == .alphanumeric)
        #expect(Self.rows(of: code) == Self.setupURIAtMediumMask3)
    }

    @Test func choosesTheSameMaskAsTheReferenceEncoder() throws {
        // Nayuki's qrcodegen 1.8.0, encode_segments([make_alphanumeric(uri)], level, 1, 10, -1, False).
        let expected: [(QRCode.ErrorCorrection, version: Int, mask: QRCode.Mask)] = [
            (.low, 1, .pattern4), (.medium, 1, .pattern2), (.quartile, 2, .pattern0), (.high, 2, .pattern7),
        ]
        for (level, version, mask) in expected {
            let code = try QRCode(encoding: Self.setupURI, errorCorrection: level)
            #expect(code.version == version, "\(level)")
            #expect(code.mask == mask, "\(level)")
        }
    }

    @Test func encodesHelloWorldToThePublishedCodewords() throws {
        let segment = try QRSegment(text: "HELLO WORLD", mode: .alphanumeric)
        let codewords = segment.codewords(version: 1, errorCorrection: .medium)
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(codewords == data + [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test("Interleaves the four blocks of 5-Q as the Python qrcode package does")
    func interleavesBlocksOfTwoLengths() throws {
        let text = "HEARTH HOME AUTOMATION FOR LINUX IN SWIFT 6: X-HM://0071WK4SM7OSX $%*+-./ 0123456789"
        let segment = try QRSegment(text: text, mode: .alphanumeric)
        #expect(try segment.smallestVersion(errorCorrection: .quartile) == 5)
        // qrcode.util.create_data(5, ERROR_CORRECT_Q, [QRData(text, mode=MODE_ALPHA_NUM)]): blocks of 15, 15, 16, 16.
        let expected = """
            22 71 D2 F1 A3 3F 75 D4 0B 31 9D FC 3B C5 7A 0F B4 3C 34 AF AB D2 0A FB 32 D0 F7 30 C4 6B 40 02 E5 3E \
            00 17 34 66 9E 45 78 85 5B C9 29 F4 41 15 8B 31 A0 2E E8 9C F9 20 A5 D3 62 EC A5 11 D9 BD BD D2 07 4D \
            D0 C2 45 88 13 6C 16 23 33 A7 A3 16 94 DF DE 9C 62 9A 29 E7 1A D4 A8 75 9C B6 17 67 CA D6 D8 F7 0C D8 \
            F6 4E 44 DE 03 70 12 6F 59 06 0F 95 E0 42 29 A4 BD 9E A3 78 20 EF 22 A8 C7 D9 E7 5D B6 B9 3E 32
            """
        let bytes = expected.split(separator: " ").compactMap { UInt8($0, radix: 16) }
        #expect(bytes.count == 134)
        #expect(segment.codewords(version: 5, errorCorrection: .quartile) == bytes)
    }

    @Test func placesFinderPatternsAtThreeCorners() throws {
        for code in try Self.symbolsOfEveryVersion() {
            let last = code.size - 1
            for (left, top) in [(0, 0), (last - 6, 0), (0, last - 6)] {
                for dy in -1...7 {
                    for dx in -1...7 {
                        // The 7 × 7 pattern is dark at distance 0, 1 and 3 from its border ring; the separator is light.
                        let ring = max(abs(dx - 3), abs(dy - 3))
                        let dark = ring != 2 && ring != 4
                        #expect(code[left + dx, top + dy] == dark, "v\(code.version) (\(left + dx), \(top + dy))")
                    }
                }
            }
            // The fourth corner has no finder pattern.
            let corner = (last - 6...last).flatMap { y in (last - 6...last).map { x in code[x, y] } }
            #expect(corner.contains(false))
        }
    }

    @Test func alternatesTheTimingPatternsBetweenTheFinders() throws {
        for code in try Self.symbolsOfEveryVersion() {
            for index in 8...(code.size - 9) {
                #expect(code[index, 6] == (index % 2 == 0), "v\(code.version) row 6 at \(index)")
                #expect(code[6, index] == (index % 2 == 0), "v\(code.version) column 6 at \(index)")
            }
        }
    }

    @Test("Puts the dark module at (8, 4V + 9)")
    func putsTheDarkModuleAboveTheBottomLeftFinder() throws {
        for code in try Self.symbolsOfEveryVersion() {
            #expect(code[8, 4 * code.version + 9], "v\(code.version)")
        }
    }

    @Test func drawsAlignmentPatternsFromVersionTwo() throws {
        for code in try Self.symbolsOfEveryVersion() where code.version >= 2 {
            let centre = code.size - 7
            for dy in -2...2 {
                for dx in -2...2 {
                    let dark = max(abs(dx), abs(dy)) != 1
                    #expect(code[centre + dx, centre + dy] == dark, "v\(code.version)")
                }
            }
        }
    }

    @Test func computesTheFormatBitsOfTheSpecTable() {
        for (level, row) in Self.formatTable {
            for mask in QRCode.Mask.allCases {
                let bits = QRMatrix.formatBits(errorCorrection: level, mask: mask)
                #expect(bits == Int(row[mask.rawValue], radix: 2), "\(level) mask \(mask.rawValue)")
            }
        }
    }

    @Test func writesBothCopiesOfTheFormatBits() throws {
        let code = try QRCode(encoding: Self.setupURI, errorCorrection: .quartile, mask: .pattern5)
        let size = code.size
        // Bit 14 first: along row 8 from the left, skipping the timing column, then up column 8.
        let first = [0, 1, 2, 3, 4, 5, 7].map { code[$0, 8] } + [8, 7, 5, 4, 3, 2, 1, 0].map { code[8, $0] }
        // Bit 14 first: up column 8 from the bottom, then along row 8 from the eighth-last module.
        let second = (0..<7).map { code[8, size - 1 - $0] } + (size - 8..<size).map { code[$0, 8] }
        let expected = "010000110000011".map { $0 == "1" }
        #expect(first == expected)
        #expect(second == expected)
    }

    @Test("Computes the version bits of Annex D for versions 7 to 10")
    func computesTheVersionBitsOfAnnexD() {
        #expect([7, 8, 9, 10].map { QRMatrix.versionBits($0) } == [0x07C94, 0x085BC, 0x09A99, 0x0A4D3])
    }

    @Test("Writes the version information from version 7")
    func writesBothCopiesOfTheVersionBits() throws {
        for code in try Self.symbolsOfEveryVersion() where code.version >= 7 {
            let bits = QRMatrix.versionBits(code.version)
            for index in 0..<18 {
                let dark = (bits >> index) & 1 == 1
                // Bit i sits at (size − 11 + i mod 3, i / 3) and its mirror image.
                #expect(code[code.size - 11 + index % 3, index / 3] == dark, "v\(code.version) bit \(index)")
                #expect(code[index / 3, code.size - 11 + index % 3] == dark, "v\(code.version) bit \(index)")
            }
        }
    }

    @Test func appliesEachForcedMask() throws {
        var symbols: [[String]] = []
        for mask in QRCode.Mask.allCases {
            let code = try QRCode(encoding: Self.setupURI, mask: mask)
            #expect(code.mask == mask)
            symbols.append(Self.rows(of: code))
        }
        #expect(Set(symbols).count == 8)
    }

    @Test func choosesTheMostCompactMode() throws {
        #expect(try QRCode(encoding: "0123456789").mode == .numeric)
        #expect(try QRCode(encoding: Self.setupURI).mode == .alphanumeric)
        #expect(try QRCode(encoding: "x-hm://0071wk4sm7osx").mode == .byte)
        #expect(try QRCode(encoding: "Küche").mode == .byte)
        #expect(try QRCode(encoding: "").version == 1)
    }

    @Test func growsTheVersionWithTheText() throws {
        // Table 7: 20 alphanumeric characters fill 1-M, and 41 digits fill 1-L.
        #expect(try QRCode(encoding: String(repeating: "A", count: 20)).version == 1)
        #expect(try QRCode(encoding: String(repeating: "A", count: 21)).version == 2)
        #expect(try QRCode(encoding: Self.setupURI, errorCorrection: .high).version == 2)
        #expect(try QRCode(encoding: String(repeating: "9", count: 41), errorCorrection: .low).version == 1)
        #expect(try QRCode(encoding: String(repeating: "9", count: 42), errorCorrection: .low).version == 2)
    }

    @Test func rejectsTextLongerThanVersionTen() throws {
        #expect(try QRCode(encoding: String(repeating: "h", count: 271), errorCorrection: .low).version == 10)
        #expect(throws: QRCodeError.textTooLong(requiredBits: 2196, availableBits: 2192)) {
            try QRCode(encoding: String(repeating: "h", count: 272), errorCorrection: .low)
        }
    }

    @Test func rejectsACharacterTheForcedModeLacks() {
        #expect(throws: QRCodeError.unsupportedCharacter(offset: 2)) {
            try QRCode(encoding: "X-hm://", mode: .alphanumeric)
        }
        #expect(throws: QRCodeError.unsupportedCharacter(offset: 0)) {
            try QRCode(encoding: "A1", mode: .numeric)
        }
        #expect(throws: QRCodeError.unsupportedCharacter(offset: 1)) {
            try QRCode(encoding: "Aé", mode: .alphanumeric)
        }
    }

    @Test func encodesInAForcedWiderMode() throws {
        let code = try QRCode(encoding: Self.setupURI, mode: .byte)
        #expect(code.mode == .byte)
        #expect(code.version == 2)  // 20 bytes do not fit the 16 data codewords of 1-M
    }

    @Test func readsOutsideTheSymbolAsLight() throws {
        let code = try QRCode(encoding: Self.setupURI)
        #expect(!code[-1, 0])
        #expect(!code[0, code.size])
        #expect(code[0, 0])
    }
}
