import HAP
import HAPAccessoryServer
import HAPTypes

/// The physical world: what a person or the environment changes, sent to controllers as events.
extension SimulatedAccessories {
    /// Sets a characteristic as the world would (a temperature drops, someone switches a lamp on by hand).
    ///
    /// `accessory` is a name (any case) or an aid; `characteristic` a catalog identifier or synonym, a UUID, a
    /// custom characteristic's description, or an iid. Enumerations also take value names (`"secured"`).
    public func set(accessory: String, characteristic: String, value: HAPValue) throws(SimulatorError) {
        let (accessoryIndex, built) = try resolveAccessory(accessory)
        let location = try resolveCharacteristic(characteristic, accessoryIndex: accessoryIndex, accessory: built.name)
        let target = self.characteristic(at: location)
        guard target.has(.read), target.type != Types.programmableSwitchEvent else {
            throw .notSettable(accessory: built.name, characteristic: characteristic)
        }
        let named = CharacteristicOverrides.named(
            value,
            type: catalog.characteristic(for: target.type),
            format: target.format
        )
        let normalized: HAPValue
        do {
            normalized = try target.normalized(named)
        } catch {
            throw .invalidValue(accessory: built.name, characteristic: characteristic, error)
        }
        var changes: [CharacteristicChange] = []
        let id = CharacteristicID(accessoryID: built.accessoryID, instanceID: target.instanceID)
        if normalized != target.value {
            store(normalized, at: location)
            changes.append(CharacteristicChange(id: id, value: normalized))
        }
        changes += react(at: location, type: target.type, value: normalized)
        emit(Self.latest(changes))
    }

    /// Presses the accessory's button (doorbell or programmable switch): a ProgrammableSwitchEvent event.
    public func press(accessory: String, kind: ButtonPress) throws(SimulatorError) {
        let (accessoryIndex, built) = try resolveAccessory(accessory)
        for service in current.accessories[accessoryIndex].services {
            guard let button = service.characteristics.first(where: { $0.type == Types.programmableSwitchEvent }) else {
                continue
            }
            let id = CharacteristicID(accessoryID: built.accessoryID, instanceID: button.instanceID)
            emit([CharacteristicChange(id: id, value: .uint(UInt64(kind.rawValue)))])
            return
        }
        throw .notAButton(accessory: built.name)
    }

    /// Makes something happen to the accessory, such as `motion`, `open`, `jam`, `obstruct`, `alarm` or `leak`.
    ///
    /// The first service whose behaviour knows the event handles it; `docs/simulator.md` lists every event.
    public func trigger(accessory: String, event: String) throws(SimulatorError) {
        let (accessoryIndex, built) = try resolveAccessory(accessory)
        let name = event.trimmingWhitespace().lowercased()
        var known: [String] = []
        for serviceIndex in current.accessories[accessoryIndex].services.indices {
            let result = withBehaviour(accessoryIndex: accessoryIndex, serviceIndex: serviceIndex) {
                behaviour,
                values in
                known += behaviour.events
                return behaviour.trigger(name, in: &values)
            }
            if result.handled {
                emit(Self.latest(result.changes))
                return
            }
        }
        throw .unknownEvent(accessory: built.name, event: event, known: Array(Set(known)).sorted())
    }

    /// Adds an accessory made from `preset` behind the bridge, with a fresh aid; sends `.databaseChanged`.
    @discardableResult
    public func addAccessory(preset: String, name: String) throws(SimulatorError) -> UInt64 {
        guard currentDescription.bridge != nil else { throw .notABridge }
        guard let known = Preset(rawValue: preset.lowercased()) else {
            throw .description(.unknownPreset(accessory: name, preset: preset))
        }
        guard !accessories.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw .nameTaken(name)
        }
        var description = currentDescription
        description.accessories.append(AccessoryDescription(name: name, preset: known.rawValue))
        try rebuild(with: description)
        return accessories.first { $0.name == name }?.accessoryID ?? 0
    }

    /// Removes a bridged accessory by name or aid, keeping the others' aids, and sends `.databaseChanged`.
    public func removeAccessory(name: String) throws(SimulatorError) {
        guard currentDescription.bridge != nil else { throw .notABridge }
        let (_, built) = try resolveAccessory(name)
        guard built.accessoryID != 1 else { throw .unknownAccessory(name) }
        try rebuild(with: currentDescription.removingAccessory(withKey: built.key))
    }

    /// Every accessory with its services and current values, for status output.
    public func snapshot() -> SimulatorSnapshot {
        var result: [AccessorySnapshot] = []
        for (accessory, built) in zip(current.accessories, accessories) {
            let services = accessory.services.map { service in
                ServiceSnapshot(
                    type: catalog.service(for: service.type)?.name ?? service.type.uuidString,
                    instanceID: service.instanceID,
                    characteristics: service.characteristics.map { characteristic in
                        let type = catalog.characteristic(for: characteristic.type)
                        let number = characteristic.value?.numericValue.flatMap { Int(exactly: $0) }
                        return CharacteristicSnapshot(
                            type: type?.name ?? characteristic.description ?? characteristic.type.uuidString,
                            instanceID: characteristic.instanceID,
                            value: characteristic.value,
                            valueName: number.flatMap { type?.name(of: $0) }
                        )
                    }
                )
            }
            result.append(
                AccessorySnapshot(
                    accessoryID: accessory.accessoryID,
                    name: built.name,
                    preset: built.preset?.rawValue,
                    services: services
                )
            )
        }
        return SimulatorSnapshot(accessories: result, identifyCount: identifyCount)
    }

    // MARK: Lookups

    func resolveAccessory(_ reference: String) throws(SimulatorError) -> (index: Int, built: BuiltAccessory) {
        let key = reference.trimmingWhitespace().lowercased()
        let built =
            accessories.first { $0.name.lowercased() == key }
            ?? UInt64(key).flatMap { accessoryID in accessories.first { $0.accessoryID == accessoryID } }
        guard let built, let index = current.accessories.firstIndex(where: { $0.accessoryID == built.accessoryID })
        else {
            throw .unknownAccessory(reference)
        }
        return (index, built)
    }

    func resolveCharacteristic(
        _ reference: String,
        accessoryIndex: Int,
        accessory: String
    ) throws(SimulatorError)
        -> Location
    {
        let services = current.accessories[accessoryIndex].services
        let accessoryID = current.accessories[accessoryIndex].accessoryID
        let trimmed = reference.trimmingWhitespace()
        if let instanceID = UInt64(trimmed),
            let location = locations[CharacteristicID(accessoryID: accessoryID, instanceID: instanceID)]
        {
            return location
        }
        let type =
            (catalog.characteristic(named: trimmed) ?? catalog.characteristic(matching: trimmed))?.uuid
            ?? (trimmed.contains("-") ? try? HAPUUID(trimmed) : nil)
        // The primary service first, so "on" on a lamp with a battery means the lamp.
        let order = services.indices.sorted { services[$0].isPrimary && !services[$1].isPrimary }
        for serviceIndex in order {
            let characteristics = services[serviceIndex].characteristics
            let match = characteristics.firstIndex { characteristic in
                if let type { return characteristic.type == type }
                return characteristic.description?.lowercased() == trimmed.lowercased()
            }
            if let match {
                return Location(accessoryIndex: accessoryIndex, serviceIndex: serviceIndex, characteristicIndex: match)
            }
        }
        throw .unknownCharacteristic(accessory: accessory, characteristic: reference)
    }

    /// Builds `description` with the current ids, keeps the values and behaviours of what stays, and announces it.
    private func rebuild(with description: SimulatorDescription) throws(SimulatorError) {
        let build: DatabaseBuild
        do {
            build = try description.makeDatabase(identifiers: identifiers)
        } catch {
            throw .description(error)
        }
        var database = build.database
        for accessoryIndex in database.accessories.indices {
            let accessoryID = database.accessories[accessoryIndex].accessoryID
            guard let old = current.accessory(withID: accessoryID) else { continue }
            for serviceIndex in database.accessories[accessoryIndex].services.indices {
                let service = database.accessories[accessoryIndex].services[serviceIndex]
                for (index, characteristic) in service.characteristics.enumerated() {
                    guard let previous = old.characteristic(withInstanceID: characteristic.instanceID),
                        previous.type == characteristic.type, let value = previous.value,
                        (try? characteristic.validate(value)) != nil
                    else { continue }
                    database.accessories[accessoryIndex].services[serviceIndex].characteristics[index].value = value
                }
            }
        }
        currentDescription = description
        identifiers = build.identifiers
        current = database
        accessories = build.accessories
        behaviours = Self.makeBehaviours(for: build, keeping: behaviours, now: clock.now)
        locations = Self.makeLocations(for: database)
        emitDatabaseChanged()
    }
}

extension SimulatorDescription {
    /// The description without the accessory whose key is `key`; a counted entry is split so the others keep keys.
    func removingAccessory(withKey key: String) -> SimulatorDescription {
        var result = self
        result.accessories = []
        for accessory in accessories {
            let count = accessory.count ?? 1
            guard count > 1 else {
                if (accessory.id ?? accessory.name).lowercased() != key { result.accessories.append(accessory) }
                continue
            }
            for number in 1...count {
                var single = accessory
                single.count = nil
                single.id = (accessory.id ?? accessory.name) + " \(number)"
                single.name = accessory.name + " \(number)"
                if single.id?.lowercased() != key { result.accessories.append(single) }
            }
        }
        return result
    }
}
