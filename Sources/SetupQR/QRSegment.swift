/// Text packed into one QR data segment: mode indicator, character count and data bits (ISO/IEC 18004:2015 §7.4).
struct QRSegment: Sendable {
    /// The characters of alphanumeric mode, in the order of their values 0 to 44 (Table 5).
    static let alphanumericCharacters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// The mode the bits are in.
    let mode: QRCode.Mode
    /// The character count field's value: characters, or bytes in byte mode.
    let count: Int
    /// The data bits after the character count field.
    let data: QRBitBuffer

    /// Packs text in the given mode; throws if a character has no place in it.
    init(text: String, mode: QRCode.Mode) throws(QRCodeError) {
        var data = QRBitBuffer()
        switch mode {
        case .numeric:
            let digits = try Self.values(of: text) {
                $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") ? Int($0) - 48 : nil
            }
            for start in stride(from: 0, to: digits.count, by: 3) {
                let group = digits[start..<min(start + 3, digits.count)]
                data.append(group.reduce(0) { $0 * 10 + $1 }, bitCount: group.count * 3 + 1)
            }
            count = digits.count
        case .alphanumeric:
            let values = try Self.values(of: text) { Self.alphanumericCharacters.firstIndex(of: $0) }
            for start in stride(from: 0, to: values.count, by: 2) {
                if start + 1 < values.count {
                    data.append(values[start] * 45 + values[start + 1], bitCount: 11)
                } else {
                    data.append(values[start], bitCount: 6)
                }
            }
            count = values.count
        case .byte:
            let bytes = Array(text.utf8)
            for byte in bytes {
                data.append(Int(byte), bitCount: 8)
            }
            count = bytes.count
        }
        self.mode = mode
        self.data = data
    }

    /// The value of each character, or the offset of the first one that has none.
    private static func values(
        of text: String,
        value: (UInt8) -> Int?
    ) throws(QRCodeError) -> [Int] {
        var values: [Int] = []
        for (offset, character) in text.enumerated() {
            guard let ascii = character.asciiValue, let found = value(ascii) else {
                throw .unsupportedCharacter(offset: offset)
            }
            values.append(found)
        }
        return values
    }

    /// Bits the segment takes in a symbol of the given version, with its header.
    func bitCount(version: Int) -> Int {
        4 + mode.characterCountBits(version: version) + data.count
    }

    /// The smallest version that holds the segment at the given level.
    func smallestVersion(errorCorrection: QRCode.ErrorCorrection) throws(QRCodeError) -> Int {
        for version in 1...QRCode.maximumVersion {
            let fitsCount = count < 1 << mode.characterCountBits(version: version)
            if fitsCount && bitCount(version: version) <= errorCorrection.dataCodewords(version: version) * 8 {
                return version
            }
        }
        throw .textTooLong(
            requiredBits: bitCount(version: QRCode.maximumVersion),
            availableBits: errorCorrection.dataCodewords(version: QRCode.maximumVersion) * 8
        )
    }

    /// The final codeword sequence (§7.6): data blocks interleaved, then their error correction interleaved.
    func codewords(version: Int, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let capacity = errorCorrection.dataCodewords(version: version) * 8
        var bits = QRBitBuffer()
        bits.append(mode.indicator, bitCount: 4)
        bits.append(count, bitCount: mode.characterCountBits(version: version))
        bits.append(contentsOf: data)
        precondition(bits.count <= capacity, "smallestVersion chose a version too small")
        // §7.4.9: a terminator of up to four 0 bits, 0 bits to a byte boundary, then the pad codewords in turn.
        bits.append(0, bitCount: min(4, capacity - bits.count))
        bits.append(0, bitCount: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var padBytes: [UInt8] = [0xEC, 0x11]
        while data.count < capacity / 8 {
            data.append(padBytes[0])
            padBytes.swapAt(0, 1)
        }
        return Self.interleave(data, version: version, errorCorrection: errorCorrection)
    }

    /// Splits data codewords into blocks, adds each block's error correction and interleaves them (§7.6).
    ///
    /// Blocks differ by at most one data codeword; the shorter ones come first (Table 9).
    static func interleave(_ data: [UInt8], version: Int, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let blockCount = errorCorrection.blockCount(version: version)
        let correctionCount = errorCorrection.codewordsPerBlock(version: version)
        let shortLength = data.count / blockCount
        let longBlockCount = data.count % blockCount
        var blocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength + (index >= blockCount - longBlockCount ? 1 : 0)
            blocks.append(Array(data[start..<start + length]))
            start += length
        }
        let corrections = blocks.map { QRReedSolomon.errorCorrection(for: $0, count: correctionCount) }

        var result: [UInt8] = []
        result.reserveCapacity(data.count + blockCount * correctionCount)
        for index in 0...shortLength {
            for block in blocks where index < block.count {
                result.append(block[index])
            }
        }
        for index in 0..<correctionCount {
            for correction in corrections {
                result.append(correction[index])
            }
        }
        return result
    }
}

extension QRCode.Mode {
    /// The most compact mode that can hold every character of the text.
    static func mostCompact(for text: String) -> Self {
        let bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return .numeric
        }
        if bytes.allSatisfy({ QRSegment.alphanumericCharacters.contains($0) }) {
            return .alphanumeric
        }
        return .byte
    }

    /// The four-bit mode indicator (Table 2).
    var indicator: Int {
        switch self {
        case .numeric: 0b0001
        case .alphanumeric: 0b0010
        case .byte: 0b0100
        }
    }

    /// Bits of the character count field (Table 3): versions 1 to 9, then 10 to 26.
    func characterCountBits(version: Int) -> Int {
        switch self {
        case .numeric: version < 10 ? 10 : 12
        case .alphanumeric: version < 10 ? 9 : 11
        case .byte: version < 10 ? 8 : 16
        }
    }
}

/// A sequence of bits, most significant first, that packs into bytes.
struct QRBitBuffer: Sendable {
    private(set) var bits: [Bool] = []

    /// The number of bits.
    var count: Int { bits.count }

    /// Appends the low `bitCount` bits of the value, most significant first.
    mutating func append(_ value: Int, bitCount: Int) {
        precondition(bitCount >= 0 && (bitCount >= Int.bitWidth - 1 || value >> bitCount == 0), "value too wide")
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            bits.append((value >> shift) & 1 == 1)
        }
    }

    /// Appends another buffer's bits.
    mutating func append(contentsOf other: QRBitBuffer) {
        bits.append(contentsOf: other.bits)
    }

    /// The bits as bytes; a final partial byte is padded with 0 bits.
    var bytes: [UInt8] {
        var result = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit {
            result[index / 8] |= 0x80 >> (index % 8)
        }
        return result
    }
}
