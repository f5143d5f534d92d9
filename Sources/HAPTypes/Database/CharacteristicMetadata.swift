/// What a controller may do with a characteristic; hap-protocol.md §9.2.
public enum Permission: String, Codable, Sendable, CaseIterable {
    /// Paired read (`pr`).
    case read = "pr"
    /// Paired write (`pw`).
    case write = "pw"
    /// Notifications through events (`ev`).
    case notify = "ev"
    /// Writes need additional authorization data (`aa`).
    case additionalAuthorization = "aa"
    /// Writes must be timed: a `/prepare` first (`tw`).
    case timedWrite = "tw"
    /// Hidden from users (`hd`).
    case hidden = "hd"
    /// A write may ask for the value back with `r:true` (`wr`).
    case writeResponse = "wr"
}

/// How a characteristic's value is represented; hap-protocol.md §9.1.
public enum Format: String, Codable, Sendable, CaseIterable {
    /// `true`/`false` (JSON also `1`/`0`).
    case bool
    /// An unsigned 8-bit integer, 0–255.
    case uint8
    /// An unsigned 16-bit integer, 0–65535.
    case uint16
    /// An unsigned 32-bit integer.
    case uint32
    /// An unsigned 64-bit integer.
    case uint64
    /// A signed 32-bit integer.
    case int
    /// A finite floating-point number.
    case float
    /// A UTF-8 string, 64 bytes unless `maxLen` says otherwise, 256 at most.
    case string
    /// TLV8 bytes, base64 on the wire.
    case tlv8
    /// Opaque bytes, base64 on the wire.
    case data

    /// Whether values of this format are numbers that metadata ranges and steps apply to.
    public var isNumeric: Bool {
        switch self {
        case .uint8, .uint16, .uint32, .uint64, .int, .float: true
        case .bool, .string, .tlv8, .data: false
        }
    }

    /// The integer range of an integer format, or `nil` for other formats.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        case .int: Int64(Int32.min)...Int64(Int32.max)
        case .uint64, .bool, .float, .string, .tlv8, .data: nil
        }
    }
}

/// The unit of a numeric characteristic; hap-protocol.md §9.3.
public enum Unit: String, Codable, Sendable, CaseIterable {
    /// Degrees Celsius, the only temperature unit (controllers convert for display).
    case celsius
    /// A percentage.
    case percentage
    /// Degrees of arc.
    case arcdegrees
    /// Illuminance in lux.
    case lux
    /// Seconds.
    case seconds
}

/// One characteristic addressed by accessory and instance id (`aid.iid` in a query).
public struct CharacteristicID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The accessory's id (`aid`).
    public var accessoryID: UInt64
    /// The characteristic's instance id within the accessory (`iid`).
    public var instanceID: UInt64

    /// Addresses the characteristic `instanceID` of accessory `accessoryID`.
    public init(accessoryID: UInt64, instanceID: UInt64) {
        self.accessoryID = accessoryID
        self.instanceID = instanceID
    }

    /// The query form, `aid.iid`.
    public var description: String { "\(accessoryID).\(instanceID)" }

    private enum CodingKeys: String, CodingKey {
        case accessoryID = "aid"
        case instanceID = "iid"
    }
}

/// The limits of a characteristic's values, as its accessory declared them.
public struct CharacteristicMetadata: Sendable, Equatable, Codable {
    /// A description for people.
    public var description: String?
    /// The unit of a numeric value.
    public var unit: Unit?
    /// The smallest value allowed.
    public var minValue: Double?
    /// The largest value allowed.
    public var maxValue: Double?
    /// The step between allowed values, counted from `minValue`.
    public var minStep: Double?
    /// The longest string in UTF-8 bytes; `nil` means HAP's default of 64.
    public var maxLength: Int?
    /// The longest `data` value in bytes.
    public var maxDataLength: Int?
    /// The only values allowed, for enumerations.
    public var validValues: [Int]?
    /// The range values must lie in.
    public var validValuesRange: ClosedRange<Int>?

    /// Makes metadata; every limit left `nil` is absent.
    public init(
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

    /// The metadata of a HAP characteristic.
    public init(_ characteristic: HAPCharacteristic) {
        self.init(
            description: characteristic.description,
            unit: characteristic.unit,
            minValue: characteristic.minValue,
            maxValue: characteristic.maxValue,
            minStep: characteristic.minStep,
            maxLength: characteristic.maxLength,
            maxDataLength: characteristic.maxDataLength,
            validValues: characteristic.validValues,
            validValuesRange: characteristic.validValuesRange
        )
    }
}
