import HAP
import HAPAccessoryServer
import HAPTypes

extension SimulatedAccessories {
    /// Stores a value above the characteristic's own maximum and announces it: the `out-of-range` fault.
    ///
    /// Every check is skipped. Returns the characteristic and the value it held, to put back with
    /// ``restoreValue(_:at:)``.
    ///
    /// Without names, the first readable, event-capable numeric characteristic with a maximum is taken.
    func forceOutOfRange(
        accessory: String?,
        characteristic: String?
    ) throws(SimulatorFaultError) -> (id: CharacteristicID, previous: HAPValue?) {
        let location: Location
        do {
            location = try outOfRangeLocation(accessory: accessory, characteristic: characteristic)
        } catch {
            throw .unavailable(fault: "out-of-range", reason: "\(error)")
        }
        let target = self.characteristic(at: location)
        guard let maximum = target.maxValue, target.has(.read) else {
            throw .unavailable(
                fault: "out-of-range",
                reason: "the characteristic has no maximum value or cannot be read"
            )
        }
        let above = maximum + max(target.minStep ?? 1, 1) * 10
        let value: HAPValue =
            switch target.format {
            case .float: .float(above)
            case .int: .int(Int64(above))
            default: .uint(UInt64(max(0, above)))
            }
        let id = CharacteristicID(
            accessoryID: current.accessories[location.accessoryIndex].accessoryID,
            instanceID: target.instanceID
        )
        store(value, at: location)
        emit([CharacteristicChange(id: id, value: value)])
        return (id, target.value)
    }

    /// Puts back a value ``forceOutOfRange(accessory:characteristic:)`` replaced, and announces it.
    func restoreValue(_ value: HAPValue?, at id: CharacteristicID) {
        guard let location = locations[id] else { return }
        store(value ?? .int(0), at: location)
        emit([CharacteristicChange(id: id, value: value)])
    }

    private func outOfRangeLocation(
        accessory: String?,
        characteristic: String?
    ) throws(SimulatorError) -> Location {
        if let accessory {
            let (index, built) = try resolveAccessory(accessory)
            if let characteristic {
                return try resolveCharacteristic(characteristic, accessoryIndex: index, accessory: built.name)
            }
            if let found = firstBounded(inAccessory: index) { return found }
            throw .unknownCharacteristic(accessory: built.name, characteristic: "a numeric one with a maximum")
        }
        for index in current.accessories.indices {
            if let found = firstBounded(inAccessory: index) { return found }
        }
        throw .unknownCharacteristic(accessory: "any", characteristic: "a numeric one with a maximum")
    }

    private func firstBounded(inAccessory index: Int) -> Location? {
        for (serviceIndex, service) in current.accessories[index].services.enumerated() {
            for (characteristicIndex, characteristic) in service.characteristics.enumerated()
            where characteristic.maxValue != nil && characteristic.has(.read) && characteristic.has(.notify)
                && characteristic.validValues == nil
                && [.float, .int, .uint8, .uint16, .uint32, .uint64].contains(characteristic.format)
            {
                return Location(
                    accessoryIndex: index,
                    serviceIndex: serviceIndex,
                    characteristicIndex: characteristicIndex
                )
            }
        }
        return nil
    }
}
