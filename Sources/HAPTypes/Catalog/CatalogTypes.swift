/// One named value of an enumerated characteristic, such as LockTargetState 1 "secured"/"locked".
public struct NamedValue: Sendable, Equatable, Codable {
    /// The number sent on the wire.
    public var value: Int
    /// The names people and code use for it; the first is the stable lowerCamelCase identifier.
    public var names: [String]

    /// Names `value`; the first name is its identifier.
    public init(value: Int, names: [String]) {
        self.value = value
        self.names = names
    }
}

/// An Apple-defined characteristic type from the catalog: what it means, its format and its limits.
public struct CharacteristicType: Sendable, Equatable, Codable {
    /// The type UUID, written short in the catalog file (`"25"` for On).
    public var uuid: HAPUUID
    /// The stable lowerCamelCase identifier (`currentTemperature`).
    public var name: String
    /// The name shown to people ("Current Temperature").
    public var displayName: String
    /// Other words people use for it ("temperature", "temp").
    public var synonyms: [String]
    /// How values are represented.
    public var format: Format
    /// What a controller may do with it.
    public var permissions: [Permission]
    /// The unit of a numeric value.
    public var unit: Unit?
    /// The smallest value.
    public var minValue: Double?
    /// The largest value.
    public var maxValue: Double?
    /// The step between values.
    public var minStep: Double?
    /// The longest string in UTF-8 bytes, when it is not the default 64.
    public var maxLength: Int?
    /// The values of an enumeration, each with its names.
    public var validValues: [NamedValue]?
    /// Why a value was chosen where sources disagree (hap-protocol.md §14), or a remark on the type.
    public var notes: String?

    /// The number a value name stands for (case-insensitive: "Locked" → 1 for LockTargetState).
    public func value(named name: String) -> Int? {
        let key = TypeCatalog.normalizedKey(name)
        return validValues?.first { $0.names.contains { TypeCatalog.normalizedKey($0) == key } }?.value
    }

    /// The identifier of a value (1 → "secured" for LockTargetState), if the value is named.
    public func name(of value: Int) -> String? {
        validValues?.first { $0.value == value }?.names.first
    }
}

/// An Apple-defined service type from the catalog: what it means and which characteristics it holds.
public struct ServiceType: Sendable, Equatable, Codable {
    /// The type UUID, written short in the catalog file (`"43"` for Lightbulb).
    public var uuid: HAPUUID
    /// The stable lowerCamelCase identifier (`lightbulb`).
    public var name: String
    /// The name shown to people ("Lightbulb").
    public var displayName: String
    /// Other words people use for it ("light", "lamp", "bulb").
    public var synonyms: [String]
    /// Identifiers of the characteristics every such service has.
    public var requiredCharacteristics: [String]
    /// Identifiers of the characteristics such a service may have.
    public var optionalCharacteristics: [String]
    /// Why a choice was made where sources disagree (hap-protocol.md §14), or a remark on the type.
    public var notes: String?
    /// Whether the type is operational: people never name or command it.
    ///
    /// Operational types include device information, protocol and lock management. `hidden` in the catalog file,
    /// false when absent.
    public var isHidden: Bool
}

extension ServiceType {
    private enum CodingKeys: String, CodingKey {
        case uuid, name, displayName, synonyms, requiredCharacteristics, optionalCharacteristics, notes
        case isHidden = "hidden"
    }

    /// Reads a catalog entry; `hidden` may be left out, and means false then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try container.decode(HAPUUID.self, forKey: .uuid)
        name = try container.decode(String.self, forKey: .name)
        displayName = try container.decode(String.self, forKey: .displayName)
        synonyms = try container.decode([String].self, forKey: .synonyms)
        requiredCharacteristics = try container.decode([String].self, forKey: .requiredCharacteristics)
        optionalCharacteristics = try container.decode([String].self, forKey: .optionalCharacteristics)
        notes = try container.decodeIfPresent(String.self, forKey: .notes)
        isHidden = try container.decodeIfPresent(Bool.self, forKey: .isHidden) ?? false
    }

    /// Writes a catalog entry in the catalog file's shape; `hidden` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(name, forKey: .name)
        try container.encode(displayName, forKey: .displayName)
        if isHidden { try container.encode(isHidden, forKey: .isHidden) }
        try container.encode(synonyms, forKey: .synonyms)
        try container.encode(requiredCharacteristics, forKey: .requiredCharacteristics)
        try container.encode(optionalCharacteristics, forKey: .optionalCharacteristics)
        try container.encodeIfPresent(notes, forKey: .notes)
    }
}

/// Why the type catalog could not be loaded or could not build what was asked.
public enum CatalogError: Error, Equatable, Sendable {
    /// The catalog is not valid JSON of the expected shape; the text says where.
    case malformed(String)
    /// Two entries of one kind share a UUID.
    case duplicateType(HAPUUID)
    /// Two entries of one kind share an identifier, or a synonym names two entries.
    case duplicateName(String)
    /// A service lists a characteristic the catalog does not define.
    case undefinedCharacteristic(service: String, characteristic: String)
    /// No service with this identifier, UUID or synonym.
    case unknownService(String)
    /// No characteristic with this identifier, UUID or synonym.
    case unknownCharacteristic(String)
    /// The characteristic is neither required nor optional in the service.
    case characteristicNotInService(service: String, characteristic: String)
}

extension CatalogError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .malformed(let reason): "the type catalog is malformed: \(reason)"
        case .duplicateType(let uuid):
            "two entries of the type catalog share the type \(ValueError.displayName(of: uuid) ?? uuid.description)"
        case .duplicateName(let name): "two entries of the type catalog share the name \"\(name)\""
        case .undefinedCharacteristic(let service, let characteristic):
            "the service \"\(service)\" lists \"\(characteristic)\", which the type catalog does not define"
        case .unknownService(let name): "no service type is called \"\(name)\""
        case .unknownCharacteristic(let name): "no characteristic type is called \"\(name)\""
        case .characteristicNotInService(let service, let characteristic):
            "the service \"\(service)\" has no characteristic \"\(characteristic)\""
        }
    }
}
