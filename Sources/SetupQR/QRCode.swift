/// Why text could not be made into a QR code.
public enum QRCodeError: Error, Equatable, Sendable {
    /// The text needs more data bits than a version 10 symbol holds at the chosen error correction level.
    case textTooLong(requiredBits: Int, availableBits: Int)
    /// A character the forced mode cannot encode; the value is its offset in the text's `Character`s.
    case unsupportedCharacter(offset: Int)
}

/// A QR code symbol (ISO/IEC 18004:2015, versions 1 to 10) as a square of dark and light modules.
///
/// Made for showing a HomeKit setup payload (`X-HM://…`, hap-protocol.md §8.1) to a phone's camera; the matrix is a
/// value, and drawing it (`terminalString`) is text, so nothing here does I/O.
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still be read.
    public enum ErrorCorrection: Sendable, Equatable, CaseIterable {
        /// About 7% of codewords can be restored.
        case low
        /// About 15% of codewords can be restored.
        case medium
        /// About 25% of codewords can be restored.
        case quartile
        /// About 30% of codewords can be restored.
        case high
    }

    /// How the text's characters are packed into bits.
    public enum Mode: Sendable, Equatable, CaseIterable {
        /// Digits 0–9, three in 10 bits.
        case numeric
        /// `0-9`, `A-Z`, space and `$%*+-./:`, two in 11 bits.
        case alphanumeric
        /// The text's UTF-8 bytes, 8 bits each.
        case byte
    }

    /// One of the eight patterns XORed over the data to avoid shapes that confuse a reader (§7.8.2).
    public enum Mask: Int, Sendable, Equatable, CaseIterable {
        /// (row + column) mod 2 = 0.
        case pattern0 = 0
        /// row mod 2 = 0.
        case pattern1
        /// column mod 3 = 0.
        case pattern2
        /// (row + column) mod 3 = 0.
        case pattern3
        /// (row / 2 + column / 3) mod 2 = 0.
        case pattern4
        /// (row × column) mod 2 + (row × column) mod 3 = 0.
        case pattern5
        /// ((row × column) mod 2 + (row × column) mod 3) mod 2 = 0.
        case pattern6
        /// ((row + column) mod 2 + (row × column) mod 3) mod 2 = 0.
        case pattern7
    }

    /// The largest version this encoder makes: 57 × 57 modules.
    public static let maximumVersion = 10

    /// The symbol version, 1 to 10; the smallest that holds the text.
    public let version: Int
    /// The number of modules on each side: 4 × version + 17.
    public let size: Int
    /// The error correction level the symbol was made with.
    public let errorCorrection: ErrorCorrection
    /// The mode the text was encoded in.
    public let mode: Mode
    /// The mask applied to the data modules.
    public let mask: Mask
    /// Row-major, `true` for dark.
    private let modules: [Bool]

    /// Encodes text in the smallest version that holds it.
    ///
    /// With `mode` nil, the most compact mode that can hold every character is used. With `mask` nil, the mask with
    /// the lowest penalty score (§7.8.3) is used; passing one fixes it, for comparing with another encoder.
    public init(
        encoding text: String,
        errorCorrection: ErrorCorrection = .medium,
        mode: Mode? = nil,
        mask: Mask? = nil
    ) throws(QRCodeError) {
        let mode = mode ?? Mode.mostCompact(for: text)
        let segment = try QRSegment(text: text, mode: mode)
        let version = try segment.smallestVersion(errorCorrection: errorCorrection)
        let codewords = segment.codewords(version: version, errorCorrection: errorCorrection)

        var matrix = QRMatrix(version: version)
        matrix.placeData(codewords)
        let chosen = mask ?? matrix.bestMask(errorCorrection: errorCorrection)
        matrix.apply(chosen)
        matrix.drawFormat(errorCorrection: errorCorrection, mask: chosen)

        self.version = version
        self.size = matrix.size
        self.errorCorrection = errorCorrection
        self.mode = mode
        self.mask = chosen
        self.modules = matrix.modules
    }

    /// Whether the module at column `x` and row `y` is dark; outside the symbol (the quiet zone) is light.
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else {
            return false
        }
        return modules[y * size + x]
    }
}
