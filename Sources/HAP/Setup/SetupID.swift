import HAPTypes

/// Why a setup ID was refused.
public enum SetupIDError: Error, Equatable, Sendable {
    /// Not exactly four characters from `0-9A-Z`.
    case invalidFormat
}

/// The 4-character ID in the setup payload that, with the device ID, makes the `sh` setup hash.
///
/// hap-protocol.md §12.1: four characters from `0-9A-Z`. `0000` means "no setup ID" inside a setup payload.
public struct SetupID: Sendable, Hashable, TextCodable {
    /// The four upper-case characters.
    public let rawValue: String

    /// The characters a setup ID is made of, in base-36 digit order.
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// Parses four characters from `0-9A-Z`; lower case is refused.
    public init(_ text: String) throws(SetupIDError) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy(Self.isAllowed) else { throw .invalidFormat }
        rawValue = text
    }

    /// Draws a setup ID from `generator`; `0000` is drawn again, since a setup payload reads it as "none".
    public static func random(using generator: inout some RandomNumberGenerator) -> SetupID {
        while true {
            let bytes = (0..<4).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            let text = String(decoding: bytes, as: UTF8.self)
            if text != "0000" {
                return SetupID(unchecked: text)
            }
        }
    }

    /// Draws a setup ID from the system's cryptographically secure generator.
    public static func random() -> SetupID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(unchecked text: String) {
        rawValue = text
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

extension SetupID: CustomStringConvertible {
    /// The four characters, as printed in the setup payload.
    public var description: String { rawValue }

    /// Reads the text form.
    public init?(textForm text: String) { try? self.init(text) }

    /// What the text form looks like.
    public static let textFormHint = "a setup ID: four characters from 0-9 and A-Z"
}
