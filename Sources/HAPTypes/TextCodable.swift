#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value whose JSON form is one string: its `description`, read back by `init(textForm:)`.
///
/// Device IDs, setup IDs, type UUIDs, clock times and dates share it, so a malformed one is refused with the same
/// kind of sentence everywhere ("'25:00' is not a time of day like 07:30").
public protocol TextCodable: Codable, CustomStringConvertible {
    /// Reads the text form; `nil` when `text` is not one.
    init?(textForm text: String)
    /// What the text form looks like, for the sentence that refuses another ("a time of day like 07:30").
    static var textFormHint: String { get }
}

extension TextCodable {
    /// Reads the JSON string, refusing one that is not a text form with a sentence that quotes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(textForm: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "'\(text.prefix(40))' is not \(Self.textFormHint)"
            )
        }
        self = value
    }

    /// Writes `description` as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
