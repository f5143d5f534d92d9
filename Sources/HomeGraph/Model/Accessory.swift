import Foundation
import HAPTypes

/// A device of the home, or one device behind a bridge, with its services.
public struct Accessory: Sendable, Equatable, Codable, Identifiable {
    /// The accessory's identity, fixed for its life, through renames, moves and re-pairing.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// The room it is in: the room for the entire home or one of the home's rooms.
    public var roomID: UUID
    /// The kind of device, shown as its icon.
    public var category: AccessoryCategory
    /// Who made it, from the Accessory Information service.
    public var manufacturer: String
    /// The model name.
    public var model: String
    /// The serial number.
    public var serialNumber: String
    /// The firmware revision.
    public var firmwareRevision: String
    /// Whether the hub can talk to it now.
    public var isReachable: Bool
    /// The bridge it sits behind, or `nil` when it is reached directly.
    public var bridgeID: UUID?
    /// The HAP device id of the accessory server (a bridge's id for bridged accessories).
    public var deviceID: DeviceID?
    /// The HAP accessory id (`aid`) on that server; 1 for a server's own accessory.
    public var accessoryInstanceID: UInt64
    /// The services it offers, Accessory Information included.
    public var services: [Service]

    /// Makes an accessory; unbridged and reachable unless told otherwise.
    public init(
        id: UUID,
        name: String,
        roomID: UUID,
        category: AccessoryCategory = .other,
        manufacturer: String = "",
        model: String = "",
        serialNumber: String = "",
        firmwareRevision: String = "",
        isReachable: Bool = true,
        bridgeID: UUID? = nil,
        deviceID: DeviceID? = nil,
        accessoryInstanceID: UInt64 = 1,
        services: [Service] = []
    ) {
        self.id = id
        self.name = name
        self.roomID = roomID
        self.category = category
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
        self.isReachable = isReachable
        self.bridgeID = bridgeID
        self.deviceID = deviceID
        self.accessoryInstanceID = accessoryInstanceID
        self.services = services
    }

    /// Whether it sits behind a bridge.
    public var isBridged: Bool { bridgeID != nil }

    /// Every characteristic of every service.
    public var characteristics: [Characteristic] { services.flatMap(\.characteristics) }
}

// AccessoryCategory is a HAP enum with a raw value; the graph stores and sends it as that number.
extension AccessoryCategory: Codable {}

/// One service of an accessory: a group of characteristics with a catalog type such as Lightbulb.
public struct Service: Sendable, Equatable, Codable, Identifiable {
    /// The service's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home like every other name, except that a service may carry its
    /// own accessory's name, and hidden services (``isHidden(in:)``) are left out.
    public var name: String
    /// What the service is, from the type catalog.
    public var type: HAPUUID
    /// The HAP instance id (`iid`) within the accessory.
    public var instanceID: UInt64
    /// Whether this is the accessory's primary service.
    public var isPrimary: Bool
    /// Whether the accessory marks the service hidden from users (HAP's `hidden`); stored only when true.
    public var isHidden: Bool
    /// The service's characteristics.
    public var characteristics: [Characteristic]

    /// Makes a service.
    public init(
        id: UUID,
        name: String,
        type: HAPUUID,
        instanceID: UInt64 = 0,
        isPrimary: Bool = false,
        isHidden: Bool = false,
        characteristics: [Characteristic] = []
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.instanceID = instanceID
        self.isPrimary = isPrimary
        self.isHidden = isHidden
        self.characteristics = characteristics
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, type, instanceID, isPrimary, isHidden, characteristics
    }

    /// Reads a service; `isHidden` is absent from services stored before it existed, and means false then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(HAPUUID.self, forKey: .type)
        instanceID = try container.decode(UInt64.self, forKey: .instanceID)
        isPrimary = try container.decode(Bool.self, forKey: .isPrimary)
        isHidden = try container.decodeIfPresent(Bool.self, forKey: .isHidden) ?? false
        characteristics = try container.decode([Characteristic].self, forKey: .characteristics)
    }

    /// Writes a service; `isHidden` only when true, so a visible service's JSON is as it always was.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(instanceID, forKey: .instanceID)
        try container.encode(isPrimary, forKey: .isPrimary)
        if isHidden { try container.encode(isHidden, forKey: .isHidden) }
        try container.encode(characteristics, forKey: .characteristics)
    }

    /// Whether people never see, name or command the service: the accessory marks it hidden, or `catalog` marks its
    /// type as an operational one (Accessory Information, Protocol Information, Lock Management).
    ///
    /// A hidden service is never a command's target, and its name need not be unique in the home.
    public func isHidden(in catalog: TypeCatalog) -> Bool {
        isHidden || catalog.service(for: type)?.isHidden == true
    }

    /// ``isHidden(in:)`` against the bundled type catalog.
    public var isHiddenFromPeople: Bool {
        isHidden || Self.hiddenTypes.contains(type)
    }

    /// The types the bundled catalog marks hidden, read once.
    private static let hiddenTypes: Set<HAPUUID> = Set(
        ((try? TypeCatalog.shared())?.services ?? []).filter(\.isHidden).map(\.uuid)
    )
}

/// One characteristic of a service: its type, format, permissions, limits and the last value known.
public struct Characteristic: Sendable, Equatable, Codable, Identifiable {
    /// The characteristic's identity, fixed for its life.
    public var id: UUID
    /// What the characteristic is, from the type catalog.
    public var type: HAPUUID
    /// The HAP instance id (`iid`) within the accessory.
    public var instanceID: UInt64
    /// How values are represented.
    public var format: Format
    /// What a controller may do with it.
    public var permissions: [Permission]
    /// The limits values are checked against.
    public var metadata: CharacteristicMetadata
    /// The last value the accessory reported or accepted; `nil` when none is known.
    public var value: HAPValue?
    /// Whether the hub asked the accessory for events of this characteristic.
    public var isNotificationEnabled: Bool

    /// Makes a characteristic.
    public init(
        id: UUID,
        type: HAPUUID,
        instanceID: UInt64 = 0,
        format: Format,
        permissions: [Permission],
        metadata: CharacteristicMetadata = CharacteristicMetadata(),
        value: HAPValue? = nil,
        isNotificationEnabled: Bool = false
    ) {
        self.id = id
        self.type = type
        self.instanceID = instanceID
        self.format = format
        self.permissions = permissions
        self.metadata = metadata
        self.value = value
        self.isNotificationEnabled = isNotificationEnabled
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, instanceID, format, permissions, metadata, value, isNotificationEnabled
    }

    /// Reads a characteristic, decoding `value` in the representation its `format` expects (20 stays a float).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        type = try container.decode(HAPUUID.self, forKey: .type)
        instanceID = try container.decode(UInt64.self, forKey: .instanceID)
        format = try container.decode(Format.self, forKey: .format)
        permissions = try container.decode([Permission].self, forKey: .permissions)
        metadata = try container.decode(CharacteristicMetadata.self, forKey: .metadata)
        if container.contains(.value), try !container.decodeNil(forKey: .value) {
            value = try HAPValue(from: container.superDecoder(forKey: .value), format: format)
        } else {
            value = nil
        }
        isNotificationEnabled = try container.decode(Bool.self, forKey: .isNotificationEnabled)
    }

    /// The HAP form of this characteristic, whose checks the graph uses for values and permissions.
    public var hapCharacteristic: HAPCharacteristic {
        HAPCharacteristic(
            instanceID: instanceID,
            type: type,
            permissions: permissions,
            format: format,
            value: value,
            description: metadata.description,
            unit: metadata.unit,
            minValue: metadata.minValue,
            maxValue: metadata.maxValue,
            minStep: metadata.minStep,
            maxLength: metadata.maxLength,
            maxDataLength: metadata.maxDataLength,
            validValues: metadata.validValues,
            validValuesRange: metadata.validValuesRange
        )
    }
}
