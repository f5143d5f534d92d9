#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One characteristic of a service as `GET /accessories` describes it: its type, permissions, format, value and
/// metadata; hap-protocol.md §7.4 and §9.
public struct HAPCharacteristic: Sendable, Equatable, Codable {
    /// The instance id, unique within the accessory (`iid`).
    public var instanceID: UInt64
    /// What the characteristic is (`type`).
    public var type: HAPUUID
    /// What a controller may do with it (`perms`).
    public var permissions: [Permission]
    /// How the value is represented (`format`).
    public var format: Format
    /// The current value; `nil` for write-only characteristics and values not read yet (`value`, omitted if nil).
    public var value: HAPValue?
    /// Whether the asking controller is subscribed to events (`ev`).
    public var isNotifying: Bool?
    /// A description for people (`description`).
    public var description: String?
    /// The unit of a numeric value (`unit`).
    public var unit: Unit?
    /// The smallest value allowed (`minValue`).
    public var minValue: Double?
    /// The largest value allowed (`maxValue`).
    public var maxValue: Double?
    /// The step between allowed values, counted from `minValue` (`minStep`).
    public var minStep: Double?
    /// The longest string in UTF-8 bytes (`maxLen`); `nil` means the default of 64.
    public var maxLength: Int?
    /// The longest `data` value in bytes (`maxDataLen`).
    public var maxDataLength: Int?
    /// The only values allowed, for enumerations (`valid-values`).
    public var validValues: [Int]?
    /// The range values must lie in (`valid-values-range`, a two-element array on the wire).
    public var validValuesRange: ClosedRange<Int>?

    /// Makes a characteristic; metadata left `nil` is omitted from JSON.
    public init(
        instanceID: UInt64,
        type: HAPUUID,
        permissions: [Permission],
        format: Format,
        value: HAPValue? = nil,
        isNotifying: Bool? = nil,
        description: String? = nil,
        unit: Unit? = nil,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minStep: Double? = nil,
        maxLength: Int? = nil,
        maxDataLength: Int? = nil,
        validValues: [Int]? = nil,
        validValuesRange: ClosedRange<Int>? = nil
    ) {
        self.instanceID = instanceID
        self.type = type
        self.permissions = permissions
        self.format = format
        self.value = value
        self.isNotifying = isNotifying
        self.description = description
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.maxLength = maxLength
        self.maxDataLength = maxDataLength
        self.validValues = validValues
        self.validValuesRange = validValuesRange
    }

    /// Whether the characteristic has `permission`.
    public func has(_ permission: Permission) -> Bool { permissions.contains(permission) }

    enum CodingKeys: String, CodingKey {
        case instanceID = "iid"
        case type
        case permissions = "perms"
        case format
        case value
        case isNotifying = "ev"
        case description
        case unit
        case minValue
        case maxValue
        case minStep
        case maxLength = "maxLen"
        case maxDataLength = "maxDataLen"
        case validValues = "valid-values"
        case validValuesRange = "valid-values-range"
    }

    /// Reads the JSON of §7.4, decoding `value` against `format` and treating an empty `unit` string as absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        instanceID = try container.decode(UInt64.self, forKey: .instanceID)
        type = try container.decode(HAPUUID.self, forKey: .type)
        permissions = try container.decode([Permission].self, forKey: .permissions)
        format = try container.decode(Format.self, forKey: .format)
        if container.contains(.value), try !container.decodeNil(forKey: .value) {
            value = try HAPValue(from: container.superDecoder(forKey: .value), format: format)
        } else {
            value = nil
        }
        isNotifying = try container.decodeIfPresent(Bool.self, forKey: .isNotifying)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        unit = try Self.decodeUnit(container, forKey: .unit)
        minValue = try container.decodeIfPresent(Double.self, forKey: .minValue)
        maxValue = try container.decodeIfPresent(Double.self, forKey: .maxValue)
        minStep = try container.decodeIfPresent(Double.self, forKey: .minStep)
        maxLength = try container.decodeIfPresent(Int.self, forKey: .maxLength)
        maxDataLength = try container.decodeIfPresent(Int.self, forKey: .maxDataLength)
        validValues = try container.decodeIfPresent([Int].self, forKey: .validValues)
        validValuesRange = try Self.decodeRange(container, forKey: .validValuesRange)
    }

    /// Writes the JSON of §7.4, leaving out every field that is `nil`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(instanceID, forKey: .instanceID)
        try container.encode(type, forKey: .type)
        try container.encode(permissions, forKey: .permissions)
        try container.encode(format, forKey: .format)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encodeIfPresent(isNotifying, forKey: .isNotifying)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(unit, forKey: .unit)
        try container.encodeIfPresent(minValue, forKey: .minValue)
        try container.encodeIfPresent(maxValue, forKey: .maxValue)
        try container.encodeIfPresent(minStep, forKey: .minStep)
        try container.encodeIfPresent(maxLength, forKey: .maxLength)
        try container.encodeIfPresent(maxDataLength, forKey: .maxDataLength)
        try container.encodeIfPresent(validValues, forKey: .validValues)
        if let range = validValuesRange {
            try container.encode([range.lowerBound, range.upperBound], forKey: .validValuesRange)
        }
    }

    /// Reads a `unit`, treating an empty string as absent; an unknown unit is an error.
    ///
    /// HAP-python style bodies carry empty strings for absent fields.
    static func decodeUnit<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>,
        forKey key: Key
    ) throws -> Unit? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key), !text.isEmpty else { return nil }
        guard let unit = Unit(rawValue: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "Unknown unit \(text)")
        }
        return unit
    }

    static func decodeRange<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>,
        forKey key: Key
    ) throws -> ClosedRange<Int>? {
        guard let bounds = try container.decodeIfPresent([Int].self, forKey: key) else { return nil }
        guard bounds.count == 2, bounds[0] <= bounds[1] else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "valid-values-range must be [min, max] with min <= max"
            )
        }
        return bounds[0]...bounds[1]
    }
}
