/// Building database entries from catalog types, as HAP-python's loader does from its JSON.
extension TypeCatalog {
    /// A characteristic of `type` with the catalog's format, permissions and metadata.
    ///
    /// Without a `value`, a readable characteristic starts at a neutral value: false, the first valid value, the
    /// minimum (or 0), an empty string or no bytes. Write-only ones and ProgrammableSwitchEvent have none.
    public func makeCharacteristic(
        _ type: CharacteristicType,
        instanceID: UInt64,
        value: HAPValue? = nil
    ) -> HAPCharacteristic {
        var characteristic = HAPCharacteristic(
            instanceID: instanceID,
            type: type.uuid,
            permissions: type.permissions,
            format: type.format,
            description: type.displayName,
            unit: type.unit,
            minValue: type.minValue,
            maxValue: type.maxValue,
            minStep: type.minStep,
            // hap-protocol.md §7.4: maxLen is omitted when it is the default 64.
            maxLength: type.maxLength == HAPCharacteristic.defaultMaxLength ? nil : type.maxLength,
            validValues: type.validValues?.map(\.value)
        )
        characteristic.value = value ?? Self.initialValue(for: characteristic)
        return characteristic
    }

    /// A characteristic from its identifier, display name or synonym; see `makeCharacteristic(_:instanceID:value:)`.
    public func makeCharacteristic(
        named name: String,
        instanceID: UInt64,
        value: HAPValue? = nil
    ) throws(CatalogError) -> HAPCharacteristic {
        guard let type = characteristic(named: name) ?? characteristic(matching: name) else {
            throw .unknownCharacteristic(name)
        }
        return makeCharacteristic(type, instanceID: instanceID, value: value)
    }

    /// A service of the type named `name` with iid `instanceID`, its required characteristics and then
    /// `optionalCharacteristics` numbered `instanceID + 1`, `instanceID + 2`, … in that order.
    public func makeService(
        named name: String,
        instanceID: UInt64,
        optionalCharacteristics: [String] = [],
        isPrimary: Bool = false
    ) throws(CatalogError) -> HAPService {
        guard let type = service(named: name) ?? service(matching: name) else { throw .unknownService(name) }
        var characteristics: [HAPCharacteristic] = []
        var nextID = instanceID
        for characteristicName in type.requiredCharacteristics + optionalCharacteristics {
            guard let characteristicType = characteristic(named: characteristicName) else {
                throw .unknownCharacteristic(characteristicName)
            }
            guard
                type.requiredCharacteristics.contains(characteristicName)
                    || type.optionalCharacteristics.contains(characteristicName)
            else {
                throw .characteristicNotInService(service: type.name, characteristic: characteristicName)
            }
            nextID += 1
            characteristics.append(makeCharacteristic(characteristicType, instanceID: nextID))
        }
        return HAPService(
            instanceID: instanceID,
            type: type.uuid,
            isPrimary: isPrimary,
            characteristics: characteristics
        )
    }

    private static func initialValue(for characteristic: HAPCharacteristic) -> HAPValue? {
        guard characteristic.has(.read), characteristic.type != HAPCharacteristic.programmableSwitchEventType else {
            return nil
        }
        switch characteristic.format {
        case .bool:
            return .bool(false)
        case .string:
            return .string("")
        case .tlv8, .data:
            return .data([])
        case .uint8, .uint16, .uint32, .uint64, .int, .float:
            let start = characteristic.validValues?.first.map(Double.init) ?? max(characteristic.minValue ?? 0, 0)
            let clamped = min(start, characteristic.maxValue ?? start)
            return try? HAPValue.float(clamped).converted(to: characteristic.format)
        }
    }
}

extension TypeCatalog {
    /// The identifiers of the characteristics `service` must have but lacks, in catalog order.
    ///
    /// Empty for a service whose type the catalog does not know (a custom service has no required list).
    public func missingRequiredCharacteristics(in service: HAPService) -> [String] {
        guard let type = self.service(for: service.type) else { return [] }
        let present = Set(service.characteristics.map(\.type))
        return type.requiredCharacteristics.filter { name in
            guard let uuid = characteristic(named: name)?.uuid else { return true }
            return !present.contains(uuid)
        }
    }
}
