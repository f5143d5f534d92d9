#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A characteristic value as HAP carries it in JSON; the characteristic's `Format` says which case is expected.
///
/// `tlv8` and `data` values are bytes here and base64 strings on the wire. Decoding without a format picks the
/// narrowest JSON reading (bool, then signed, unsigned, floating, string); `converted(to:)` or
/// `init(from:format:)` turn that into the representation a format expects.
public enum HAPValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A `bool` value.
    case bool(Bool)
    /// A signed integer (`int`, or any integer read without a format).
    case int(Int64)
    /// An unsigned integer (`uint8` … `uint64`, or a large integer read without a format).
    case uint(UInt64)
    /// A `float` value.
    case float(Double)
    /// A `string` value.
    case string(String)
    /// The bytes of a `tlv8` or `data` value.
    case data([UInt8])

    /// The value as a `Double`, for range and step checks; `nil` for bools, strings and bytes.
    public var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        case .float(let value): value
        case .bool, .string, .data: nil
        }
    }

    /// A short text for messages: the number, the quoted string, or a byte count (never the bytes).
    public var description: String {
        switch self {
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .float(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .data(let bytes): "\(bytes.count) bytes"
        }
    }

    /// Reads a JSON value without knowing its format (see the type's note on which case is picked).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .uint(value)
        } else if let value = try? container.decode(Double.self) {
            self = .float(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "a characteristic value must be true, false, a number or a string"
            )
        }
    }

    /// Reads a JSON value in the representation `format` expects, accepting HAP's tolerated forms.
    ///
    /// hap-protocol.md §7.6: a bool accepts `true`/`false`/`1`/`0`; integers must be whole and in range;
    /// `data`/`tlv8` are base64 strings. A value that does not fit is a `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder, format: Format) throws {
        let raw = try HAPValue(from: decoder)
        do {
            self = try raw.converted(to: format)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(error)")
            )
        }
    }

    /// Writes the JSON value: bytes as base64, everything else as itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .uint(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .data(let bytes): try container.encode(Data(bytes).base64EncodedString())
        }
    }

    /// The same value in the representation `format` expects, or why it cannot be one.
    ///
    /// This checks the JSON type and the format's own range (uint8 0–255, int 32-bit, float finite); metadata
    /// limits are checked by `HAPCharacteristic.normalized(_:)`.
    public func converted(to format: Format) throws(ValueError) -> HAPValue {
        switch format {
        case .bool:
            switch self {
            case .bool: return self
            case .int(let value) where value == 0 || value == 1: return .bool(value == 1)
            case .uint(let value) where value == 0 || value == 1: return .bool(value == 1)
            case .float(let value) where value == 0 || value == 1: return .bool(value == 1)
            case .int, .uint, .float: throw .outOfFormatRange(format: format, value: self)
            case .string, .data: throw .typeMismatch(format: format, value: self)
            }
        case .uint8, .uint16, .uint32, .uint64:
            let value = try wholeNumber(for: format)
            switch value {
            case .uint(let unsigned):
                if let range = format.integerRange, unsigned > UInt64(range.upperBound) {
                    throw .outOfFormatRange(format: format, value: self)
                }
                return value
            case .int(let signed):
                guard signed >= 0 else { throw .outOfFormatRange(format: format, value: self) }
                if let range = format.integerRange, signed > range.upperBound {
                    throw .outOfFormatRange(format: format, value: self)
                }
                return .uint(UInt64(signed))
            default:
                throw .typeMismatch(format: format, value: self)
            }
        case .int:
            let value = try wholeNumber(for: format)
            let limits = Int64(Int32.min)...Int64(Int32.max)
            switch value {
            case .int(let signed) where limits.contains(signed): return value
            case .uint(let unsigned) where unsigned <= UInt64(Int32.max): return .int(Int64(unsigned))
            default: throw .outOfFormatRange(format: format, value: self)
            }
        case .float:
            switch self {
            case .float(let value):
                guard value.isFinite else { throw .notFinite(value) }
                return self
            case .int(let value): return .float(Double(value))
            case .uint(let value): return .float(Double(value))
            case .bool, .string, .data: throw .typeMismatch(format: format, value: self)
            }
        case .string:
            guard case .string = self else { throw .typeMismatch(format: format, value: self) }
            return self
        case .tlv8, .data:
            switch self {
            case .data: return self
            case .string(let text):
                guard let bytes = Data(base64Encoded: text) else { throw .invalidBase64(format: format) }
                return .data([UInt8](bytes))
            case .bool, .int, .uint, .float: throw .typeMismatch(format: format, value: self)
            }
        }
    }

    /// This number as `.int` or `.uint` when it is whole; floats like `5.0` become integers.
    private func wholeNumber(for format: Format) throws(ValueError) -> HAPValue {
        switch self {
        case .int, .uint: return self
        case .float(let value):
            guard value.isFinite else { throw .notFinite(value) }
            guard value.rounded() == value else { throw .notWhole(format: format, value: value) }
            if value >= 0, value < 18_446_744_073_709_551_616.0 { return .uint(UInt64(value)) }
            if value < 0, value >= -9_223_372_036_854_775_808.0 { return .int(Int64(value)) }
            throw .outOfFormatRange(format: format, value: self)
        case .bool, .string, .data:
            throw .typeMismatch(format: format, value: self)
        }
    }
}

extension HAPValue {
    /// The value's JSON text when it is a Boolean or a whole number (what `JSONEncoder` writes for it), for the
    /// hub's hand-written JSON on the write path; `nil` for any other value, which goes through an encoder.
    public var plainJSON: String? {
        switch self {
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .float, .string, .data: nil
        }
    }
}
