#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The whole answer to `GET /accessories`: every accessory an accessory server (or bridge) exposes.
public struct AccessoryDatabase: Sendable, Equatable, Codable {
    /// The accessories, the primary one (aid 1) first by convention.
    public var accessories: [HAPAccessory]

    /// Makes a database of `accessories`.
    public init(accessories: [HAPAccessory]) {
        self.accessories = accessories
    }

    /// The accessory with `accessoryID`, if any.
    public func accessory(withID accessoryID: UInt64) -> HAPAccessory? {
        accessories.first { $0.accessoryID == accessoryID }
    }

    /// The characteristic addressed by `id`, if any.
    public func characteristic(at id: CharacteristicID) -> HAPCharacteristic? {
        accessory(withID: id.accessoryID)?.characteristic(withInstanceID: id.instanceID)
    }
}

/// One accessory: a physical device, or one device behind a bridge; hap-protocol.md §7.4.
public struct HAPAccessory: Sendable, Equatable, Codable {
    /// The accessory id (`aid`); the primary accessory is 1.
    public var accessoryID: UInt64
    /// The services the accessory offers.
    public var services: [HAPService]

    /// Makes an accessory with `accessoryID` and `services`.
    public init(accessoryID: UInt64, services: [HAPService]) {
        self.accessoryID = accessoryID
        self.services = services
    }

    /// The characteristic with `instanceID` in any service, if any.
    public func characteristic(withInstanceID instanceID: UInt64) -> HAPCharacteristic? {
        for service in services {
            if let found = service.characteristics.first(where: { $0.instanceID == instanceID }) {
                return found
            }
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case accessoryID = "aid"
        case services
    }
}

/// One service of an accessory: a group of characteristics with a type such as Lightbulb; hap-protocol.md §7.4.
public struct HAPService: Sendable, Equatable, Codable {
    /// The instance id, unique within the accessory and shared with characteristics (`iid`).
    public var instanceID: UInt64
    /// What the service is (`type`).
    public var type: HAPUUID
    /// Whether this is the accessory's primary service (`primary`, false when absent).
    public var isPrimary: Bool
    /// Whether the service is hidden from users (`hidden`, false when absent).
    public var isHidden: Bool
    /// Instance ids of services this one is linked to (`linked`, empty when absent).
    public var linkedServices: [UInt64]
    /// The service's characteristics.
    public var characteristics: [HAPCharacteristic]

    /// Makes a service; it is neither primary nor hidden and links nothing unless told.
    public init(
        instanceID: UInt64,
        type: HAPUUID,
        isPrimary: Bool = false,
        isHidden: Bool = false,
        linkedServices: [UInt64] = [],
        characteristics: [HAPCharacteristic]
    ) {
        self.instanceID = instanceID
        self.type = type
        self.isPrimary = isPrimary
        self.isHidden = isHidden
        self.linkedServices = linkedServices
        self.characteristics = characteristics
    }

    private enum CodingKeys: String, CodingKey {
        case instanceID = "iid"
        case type
        case isPrimary = "primary"
        case isHidden = "hidden"
        case linkedServices = "linked"
        case characteristics
    }

    /// Reads the JSON of §7.4; `primary`, `hidden` and `linked` are optional there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        instanceID = try container.decode(UInt64.self, forKey: .instanceID)
        type = try container.decode(HAPUUID.self, forKey: .type)
        isPrimary = try container.decodeIfPresent(Bool.self, forKey: .isPrimary) ?? false
        isHidden = try container.decodeIfPresent(Bool.self, forKey: .isHidden) ?? false
        linkedServices = try container.decodeIfPresent([UInt64].self, forKey: .linkedServices) ?? []
        characteristics = try container.decode([HAPCharacteristic].self, forKey: .characteristics)
    }
}

/// Compact JSON as HAP peers expect it (hap-protocol.md §7.9: no spaces).
public enum HAPJSON {
    /// Encodes `value` as compact JSON with keys in sorted order, so equal values give equal bytes.
    public static func encode(_ value: some Encodable) throws -> Data {
        // Reads and events are on every request's path: plain ones are written by hand, byte for byte the same.
        if let response = value as? CharacteristicReadResponse, let bytes = response.plainJSON() { return Data(bytes) }
        if let request = value as? CharacteristicWriteRequest, let bytes = request.plainJSON() { return Data(bytes) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Decodes the body of a read answer, a 207 write answer or an event; plain ones without `JSONDecoder`.
    public static func decodeReadResponse(_ body: [UInt8]) throws -> CharacteristicReadResponse {
        if let plain = CharacteristicReadResponse(plainJSON: body) { return plain }
        return try JSONDecoder().decode(CharacteristicReadResponse.self, from: Data(body))
    }

    /// Decodes a `type` from JSON `data`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: data)
    }
}
