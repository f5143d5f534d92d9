import HAPTypes

/// Why a setup payload URI was refused.
public enum SetupPayloadError: Error, Equatable, Sendable {
    /// The text does not start with `X-HM://`.
    case invalidScheme
    /// The text after `X-HM://` is not 13 characters; the value is its length.
    case invalidLength(Int)
    /// A character outside `0-9A-Z`.
    case invalidCharacter
    /// The version field is not 0; the value is the version found.
    case unsupportedVersion(UInt64)
    /// The category is not one of hap-protocol.md §10; the value is the raw category.
    case unknownCategory(UInt8)
    /// The setup code field is not a valid setup code.
    case invalidSetupCode(SetupCodeError)
}

extension SetupPayloadError: CustomStringConvertible {
    /// A sentence for people; it never holds the payload, which carries the setup code.
    public var description: String {
        switch self {
        case .invalidScheme: "the text does not start with X-HM://"
        case .invalidLength(let length): "X-HM:// is followed by \(length) characters, not 13"
        case .invalidCharacter: "only digits and capital letters may follow X-HM://"
        case .unsupportedVersion(let version): "payload version \(version) is not one this version reads"
        case .unknownCategory(let category): "accessory category \(category) is not a known one"
        case .invalidSetupCode(let error): "its setup code is not valid: \(error)"
        }
    }
}

/// What a QR code or NFC tag tells a controller: the setup code, setup ID, category and transports.
///
/// hap-protocol.md §8.1: `X-HM://`, then 9 upper-case base-36 characters of a 45-bit number, then the 4-character
/// setup ID (`0000` when absent). The payload holds the setup code, so never log its `uri`.
public struct SetupPayload: Sendable, Hashable {
    /// The setup code, or nil when the payload carries none (a code of 0 on the wire).
    public var setupCode: SetupCode?
    /// The setup ID, or nil when the payload carries none (`0000` on the wire).
    public var setupID: SetupID?
    /// The accessory category shown while pairing.
    public var category: AccessoryCategory
    /// Whether the accessory speaks HAP over IP (bit 28).
    public var supportsIP: Bool
    /// Whether the accessory speaks HAP over Bluetooth LE (bit 29).
    public var supportsBLE: Bool
    /// Whether the accessory is already paired (bit 27; hap-protocol.md §14.2: some write-ups call it NFC).
    public var isPaired: Bool

    /// The URI scheme and separator in front of the encoded number.
    static let prefix = "X-HM://"
    private static let numberLength = 9
    private static let setupIDLength = 4
    private static let categoryShift: UInt64 = 31
    private static let bleBit: UInt64 = 1 << 29
    private static let ipBit: UInt64 = 1 << 28
    private static let pairedBit: UInt64 = 1 << 27
    private static let codeMask: UInt64 = (1 << 27) - 1
    private static let versionShift: UInt64 = 43

    /// Describes an accessory's setup payload; by default an unpaired accessory over IP only.
    public init(
        setupCode: SetupCode?,
        setupID: SetupID?,
        category: AccessoryCategory,
        supportsIP: Bool = true,
        supportsBLE: Bool = false,
        isPaired: Bool = false
    ) {
        self.setupCode = setupCode
        self.setupID = setupID
        self.category = category
        self.supportsIP = supportsIP
        self.supportsBLE = supportsBLE
        self.isPaired = isPaired
    }

    /// Parses an `X-HM://` URI; the scheme may be in any case, the rest must be upper case.
    ///
    /// The reserved bits (42–39 and 30) are ignored, so a payload from a newer accessory still parses.
    public init(_ uri: String) throws(SetupPayloadError) {
        let bytes = Array(uri.utf8)
        let prefix = Array(Self.prefix.utf8)
        guard bytes.count >= prefix.count,
            zip(bytes, prefix).allSatisfy({ Self.asciiUppercased($0) == $1 })
        else { throw .invalidScheme }
        let body = bytes[prefix.count...]
        guard body.count == Self.numberLength + Self.setupIDLength else { throw .invalidLength(body.count) }

        var value: UInt64 = 0
        for byte in body.prefix(Self.numberLength) {
            guard let digit = Self.base36Value(byte) else { throw .invalidCharacter }
            value = value * 36 + UInt64(digit)
        }
        let idBytes = body.suffix(Self.setupIDLength)
        guard idBytes.allSatisfy({ Self.base36Value($0) != nil }) else { throw .invalidCharacter }

        let version = value >> Self.versionShift
        guard version == 0 else { throw .unsupportedVersion(version) }
        let rawCategory = UInt8(truncatingIfNeeded: value >> Self.categoryShift)
        guard let category = AccessoryCategory(rawValue: rawCategory) else { throw .unknownCategory(rawCategory) }
        let codeNumber = UInt32(value & Self.codeMask)
        if codeNumber == 0 {
            setupCode = nil
        } else {
            do {
                setupCode = try SetupCode(number: codeNumber)
            } catch {
                throw .invalidSetupCode(error)
            }
        }
        let idText = String(decoding: idBytes, as: UTF8.self)
        // The characters were checked above, so this parse cannot fail; nil covers "0000".
        setupID = idText == "0000" ? nil : try? SetupID(idText)
        self.category = category
        supportsIP = value & Self.ipBit != 0
        supportsBLE = value & Self.bleBit != 0
        isPaired = value & Self.pairedBit != 0
    }

    /// The payload as the 45-bit number of hap-protocol.md §8.1.
    var number: UInt64 {
        var value = UInt64(category.rawValue) << Self.categoryShift
        if supportsBLE { value |= Self.bleBit }
        if supportsIP { value |= Self.ipBit }
        if isPaired { value |= Self.pairedBit }
        value |= UInt64(setupCode?.number ?? 0)
        return value
    }

    /// The `X-HM://` URI to put in a QR code or NFC tag; it holds the setup code, so never log it.
    public var uri: String {
        var digits = Array(repeating: UInt8(ascii: "0"), count: Self.numberLength)
        var rest = number
        for index in digits.indices.reversed() {
            digits[index] = SetupID.alphabet[Int(rest % 36)]
            rest /= 36
        }
        return Self.prefix + String(decoding: digits, as: UTF8.self) + (setupID?.rawValue ?? "0000")
    }

    private static func base36Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func asciiUppercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
    }
}

extension SetupPayload: CustomStringConvertible, CustomReflectable {
    /// A summary for logs that leaves the setup code out.
    public var description: String {
        let transports = [supportsIP ? "IP" : nil, supportsBLE ? "BLE" : nil].compactMap { $0 }
        return "SetupPayload(category: \(category), transports: \(transports.joined(separator: "+")), "
            + "setupID: \(setupID?.rawValue ?? "none"), setupCode: \(setupCode == nil ? "none" : "redacted")"
            + "\(isPaired ? ", paired" : ""))"
    }

    /// The fields without the setup code, so `dump` and reflection cannot print it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "setupID": setupID as Any,
                "category": category,
                "supportsIP": supportsIP,
                "supportsBLE": supportsBLE,
                "isPaired": isPaired,
            ]
        )
    }
}
