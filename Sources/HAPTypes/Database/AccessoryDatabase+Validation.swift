/// Why an accessory database may not be served; checked once before the accessory server starts, as ADK's
/// `HAPAccessoryValidation.c` does.
public enum DatabaseError: Error, Equatable, Sendable {
    /// The database has no accessory.
    case noAccessories
    /// More accessories than one bridge may expose.
    case tooManyAccessories(count: Int, maximum: Int)
    /// An accessory id of 0, or one used twice.
    case invalidAccessoryID(UInt64)
    /// An instance id of 0, or one used twice within an accessory (services and characteristics share the space).
    case invalidInstanceID(accessoryID: UInt64, instanceID: UInt64)
    /// An accessory without the Accessory Information service (3E).
    case missingAccessoryInformation(accessoryID: UInt64)
    /// A service links to an instance id that is not a service of the same accessory.
    case unknownLinkedService(accessoryID: UInt64, serviceID: UInt64, linkedID: UInt64)
    /// `minValue` above `maxValue`, a step that is not positive, or a negative length.
    case inconsistentMetadata(CharacteristicID)
    /// A characteristic's current value fails its own format or metadata.
    case invalidValue(CharacteristicID, ValueError)
}

extension AccessoryDatabase {
    /// The most accessories one accessory server exposes, the bridge included; hap-protocol.md §12.3.
    public static let maximumAccessoryCount = 150

    /// Checks everything a controller relies on: ids, the Accessory Information service, links, metadata, values.
    ///
    /// hap-protocol.md §7.4: iids are unique within one accessory, services and characteristics sharing the space.
    public func validate() throws(DatabaseError) {
        guard !accessories.isEmpty else { throw .noAccessories }
        guard accessories.count <= Self.maximumAccessoryCount else {
            throw .tooManyAccessories(count: accessories.count, maximum: Self.maximumAccessoryCount)
        }
        var accessoryIDs = Set<UInt64>()
        for accessory in accessories {
            guard accessory.accessoryID != 0, accessoryIDs.insert(accessory.accessoryID).inserted else {
                throw .invalidAccessoryID(accessory.accessoryID)
            }
            try accessory.validate()
        }
    }
}

extension HAPAccessory {
    /// The Accessory Information service type (3E) every accessory must have.
    static let accessoryInformationType = HAPUUID(apple: 0x3E)

    fileprivate func validate() throws(DatabaseError) {
        var instanceIDs = Set<UInt64>()
        func claim(_ instanceID: UInt64) throws(DatabaseError) {
            guard instanceID != 0, instanceIDs.insert(instanceID).inserted else {
                throw .invalidInstanceID(accessoryID: accessoryID, instanceID: instanceID)
            }
        }
        guard services.contains(where: { $0.type == Self.accessoryInformationType }) else {
            throw .missingAccessoryInformation(accessoryID: accessoryID)
        }
        let serviceIDs = Set(services.map(\.instanceID))
        for service in services {
            try claim(service.instanceID)
            for linkedID in service.linkedServices where !serviceIDs.contains(linkedID) {
                throw .unknownLinkedService(accessoryID: accessoryID, serviceID: service.instanceID, linkedID: linkedID)
            }
            for characteristic in service.characteristics {
                try claim(characteristic.instanceID)
                let id = CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
                guard characteristic.hasConsistentMetadata else { throw .inconsistentMetadata(id) }
                if let value = characteristic.value {
                    do {
                        try characteristic.validate(value)
                    } catch {
                        throw .invalidValue(id, error)
                    }
                }
            }
        }
    }
}

extension HAPCharacteristic {
    /// Whether the metadata makes sense on its own: min ≤ max, a positive finite step, non-negative lengths.
    var hasConsistentMetadata: Bool {
        if let minValue, !minValue.isFinite { return false }
        if let maxValue, !maxValue.isFinite { return false }
        if let minValue, let maxValue, minValue > maxValue { return false }
        if let minStep, !(minStep > 0 && minStep.isFinite) { return false }
        if let maxLength, maxLength < 0 { return false }
        if let maxDataLength, maxDataLength < 0 { return false }
        return true
    }
}

extension DatabaseError: CustomStringConvertible {
    /// A sentence for people naming the accessory (`aid`) and characteristic (`aid.iid`) at fault.
    public var description: String {
        switch self {
        case .noAccessories: "the accessory database has no accessory"
        case .tooManyAccessories(let count, let maximum): "\(count) accessories; one server exposes at most \(maximum)"
        case .invalidAccessoryID(let id): "accessory id \(id) is 0 or used twice"
        case .invalidInstanceID(let accessoryID, let instanceID):
            "instance id \(instanceID) of accessory \(accessoryID) is 0 or used twice"
        case .missingAccessoryInformation(let accessoryID):
            "accessory \(accessoryID) lacks the Accessory Information service"
        case .unknownLinkedService(let accessoryID, let serviceID, let linkedID):
            "service \(serviceID) of accessory \(accessoryID) links to \(linkedID), which is not one of its services"
        case .inconsistentMetadata(let id):
            "characteristic \(id) has a minimum above its maximum, a step that is not positive or a negative length"
        case .invalidValue(let id, let error): "characteristic \(id): \(error)"
        }
    }
}
