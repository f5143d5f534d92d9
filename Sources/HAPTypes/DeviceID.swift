/// Why a device ID was refused.
public enum DeviceIDError: Error, Equatable, Sendable {
    /// Not six hex bytes separated by colons, `XX:XX:XX:XX:XX:XX`.
    case invalidFormat
    /// Not exactly six bytes; the value is the count given.
    case invalidByteCount(Int)
}

/// The accessory's pairing identifier: six bytes, advertised as `id` in mDNS and sent in pair-setup M6.
///
/// hap-protocol.md §8: written `XX:XX:XX:XX:XX:XX` in upper-case hex; stable while the accessory is paired.
public struct DeviceID: Sendable, Hashable, TextCodable {
    /// The six bytes.
    public let bytes: [UInt8]

    /// The number of bytes in a device ID.
    public static let byteCount = 6

    /// Makes a device ID from exactly six bytes.
    public init(bytes: some Collection<UInt8>) throws(DeviceIDError) {
        guard bytes.count == Self.byteCount else { throw .invalidByteCount(bytes.count) }
        self.bytes = Array(bytes)
    }

    /// Parses `XX:XX:XX:XX:XX:XX`, hex digits in either case.
    public init(_ text: String) throws(DeviceIDError) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 17 else { throw .invalidFormat }
        var parsed = [UInt8]()
        parsed.reserveCapacity(Self.byteCount)
        for index in 0..<Self.byteCount {
            let offset = index * 3
            if index > 0, utf8[offset - 1] != UInt8(ascii: ":") { throw .invalidFormat }
            guard let high = utf8[offset].asciiHexDigitValue, let low = utf8[offset + 1].asciiHexDigitValue else {
                throw .invalidFormat
            }
            parsed.append(high << 4 | low)
        }
        bytes = parsed
    }

    /// Draws six random bytes from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> DeviceID {
        DeviceID(unchecked: (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Draws six random bytes from the system's cryptographically secure generator.
    public static func random() -> DeviceID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

}

extension UInt8 {
    /// The value of this byte as an ASCII hex digit (`0`–`9`, `a`–`f`, `A`–`F`); `nil` for any other byte.
    public var asciiHexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension DeviceID: CustomStringConvertible {
    /// The ID as `XX:XX:XX:XX:XX:XX` in upper case, the form used in mDNS, pairing and the setup hash.
    public var description: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text = [UInt8]()
        text.reserveCapacity(17)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ":")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads the text form.
    public init?(textForm text: String) { try? self.init(text) }

    /// What the text form looks like.
    public static let textFormHint = "a device ID like 0E:1A:2B:3C:4D:5F"
}
