/// Why a string is not a HAP type UUID.
public enum HAPUUIDError: Error, Equatable, Sendable {
    /// The string is empty.
    case empty
    /// A short form longer than 8 hex digits.
    case shortFormTooLong(String)
    /// A character that is not a hex digit (or a dash in the wrong place).
    case invalidCharacter(String)
    /// A full form that is not five dash-separated groups of 8, 4, 4, 4 and 12 hex digits.
    case invalidShape(String)
}

/// The type of a service or characteristic: a 128-bit UUID, written short on the wire for Apple-defined types.
///
/// hap-protocol.md §9.4: Apple types are `XXXXXXXX-0000-1000-8000-0026BB765291` and are sent as the first group
/// without leading zeros (`"43"`, `"3E"`, `"121"`); custom types are sent in full, upper case. Reading accepts both
/// forms in any case.
public struct HAPUUID: Hashable, Sendable, Comparable, TextCodable {
    /// The suffix shared by every Apple-defined type, after the first group.
    public static let appleBaseSuffix = "-0000-1000-8000-0026BB765291"

    /// The full form, upper case: `00000043-0000-1000-8000-0026BB765291`.
    public let uuidString: String

    /// Makes the type of an Apple-defined service or characteristic from its short number (0x43 for Lightbulb).
    public init(apple shortID: UInt32) {
        let hex = String(shortID, radix: 16, uppercase: true)
        uuidString = String(repeating: "0", count: 8 - hex.count) + hex + Self.appleBaseSuffix
    }

    /// Parses a short (`"43"`) or full (`"00000043-0000-1000-8000-0026bb765291"`) form in any case.
    public init(_ text: String) throws(HAPUUIDError) {
        guard !text.isEmpty else { throw .empty }
        let upper = text.uppercased()
        if !upper.contains("-") {
            guard upper.utf8.allSatisfy(Self.isHexDigit) else { throw .invalidCharacter(text) }
            guard upper.utf8.count <= 8 else { throw .shortFormTooLong(text) }
            uuidString = String(repeating: "0", count: 8 - upper.utf8.count) + upper + Self.appleBaseSuffix
            return
        }
        let groups = upper.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12] else { throw .invalidShape(text) }
        guard groups.allSatisfy({ $0.utf8.allSatisfy(Self.isHexDigit) }) else { throw .invalidCharacter(text) }
        uuidString = upper
    }

    /// Whether this is an Apple-defined type (the Apple base suffix).
    public var isAppleDefined: Bool { uuidString.hasSuffix(Self.appleBaseSuffix) }

    /// The short number of an Apple-defined type (0x43 for Lightbulb), or `nil` for a custom type.
    public var appleShortID: UInt32? {
        guard isAppleDefined else { return nil }
        return UInt32(uuidString.prefix(8), radix: 16)
    }

    /// The form sent on the wire: short for Apple types (`"3E"`), full upper case for custom ones.
    public var wireForm: String {
        guard let shortID = appleShortID else { return uuidString }
        return String(shortID, radix: 16, uppercase: true)
    }

    /// The wire form, for logs and messages.
    public var description: String { wireForm }

    /// Reads the text form.
    public init?(textForm text: String) { try? self.init(text) }

    /// What the text form looks like.
    public static let textFormHint =
        "a HAP type UUID: a short form like 43 or a full one like 00000043-0000-1000-8000-0026BB765291"

    /// Orders types by their full form, so catalogs and tests list them stably.
    public static func < (lhs: HAPUUID, rhs: HAPUUID) -> Bool { lhs.uuidString < rhs.uuidString }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
