import Foundation
import HAPTypes

extension Home {
    /// Where a characteristic sits: accessory, service and characteristic positions.
    struct CharacteristicPath {
        var accessory: Int
        var service: Int
        var characteristic: Int
    }

    func accessoryIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = accessories.firstIndex(where: { $0.id == id }) else { throw .notFound(.accessory, id) }
        return index
    }

    // The lookups below walk indices rather than `enumerated()`, which copies every accessory it passes (one
    // retain per field); on a home of 500 accessories that was most of the cost of a value update.

    func servicePath(_ id: UUID) throws(HomeGraphError) -> (accessory: Int, service: Int) {
        for accessoryIndex in accessories.indices {
            if let serviceIndex = accessories[accessoryIndex].services.firstIndex(where: { $0.id == id }) {
                return (accessoryIndex, serviceIndex)
            }
        }
        throw .notFound(.service, id)
    }

    func characteristicPath(_ id: UUID) throws(HomeGraphError) -> CharacteristicPath {
        for accessoryIndex in accessories.indices {
            for serviceIndex in accessories[accessoryIndex].services.indices {
                let characteristics = accessories[accessoryIndex].services[serviceIndex].characteristics
                if let index = characteristics.firstIndex(where: { $0.id == id }) {
                    return CharacteristicPath(accessory: accessoryIndex, service: serviceIndex, characteristic: index)
                }
            }
        }
        throw .notFound(.characteristic, id)
    }

    subscript(path: CharacteristicPath) -> Characteristic {
        get { accessories[path.accessory].services[path.service].characteristics[path.characteristic] }
        set { accessories[path.accessory].services[path.service].characteristics[path.characteristic] = newValue }
    }

    // MARK: Adding and removing

    mutating func addAccessory(_ new: Accessory, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        var accessory = new
        var seen: Set<UUID> = []
        let ids = [accessory.id] + accessory.services.flatMap { [$0.id] + $0.characteristics.map(\.id) }
        for id in ids {
            try checkNewID(id)
            guard seen.insert(id).inserted else { throw .idTaken(ObjectReference(.accessory, id)) }
        }
        accessory.name = try uniqueName(accessory.name, for: accessory.id, check)
        _ = try roomIndex(accessory.roomID)
        if let bridgeID = accessory.bridgeID {
            guard bridgeID != accessory.id else { throw .invalidBridge(bridgeID) }
            let bridge = accessories[try accessoryIndex(bridgeID)]
            guard !bridge.isBridged else { throw .invalidBridge(bridgeID) }
        }
        for index in accessory.services.indices {
            accessory.services[index].name = try check.accepted(accessory.services[index].name)
        }
        if check == .strict { accessory.services = distinctlyNamed(accessory.services) }
        accessories.append(accessory)
        return [.accessoryAdded(accessory)]
    }

    /// `services` of a new accessory, each visible one renamed where its name clashes with another object of the home
    /// or an earlier service of the accessory; hidden ones are left as they are.
    ///
    /// A service may keep its accessory's name. A clashing name takes the first free number ("Outlet 2"), so a
    /// service named like the accessory before the hub numbered it ("Lamp" in "Lamp 2") follows the accessory.
    private func distinctlyNamed(_ services: [Service]) -> [Service] {
        // The new accessory's own name is not taken yet: the first service that has it keeps it.
        var taken = Set(uniquelyNamedObjects.map { Names.key($0.name) })
        var services = services
        for index in services.indices where !services[index].isHiddenFromPeople {
            let base = services[index].name
            var name = base
            // The base and the numbers 2 to one past the count of taken names cannot all be taken.
            for number in 2...(taken.count + 2) {
                if !taken.contains(Names.key(name)) { break }
                name = Names.numbered(base, number)
            }
            services[index].name = name
            taken.insert(Names.key(name))
        }
        return services
    }

    mutating func removeAccessory(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        _ = try accessoryIndex(id)
        let removed = accessories.filter { $0.id == id || $0.bridgeID == id }
        let removedIDs = Set(removed.map(\.id))
        let serviceIDs = Set(removed.flatMap { $0.services.map(\.id) })
        let characteristicIDs = Set(removed.flatMap { $0.characteristics.map(\.id) })
        var changes: [HomeChange] = []
        for groupIndex in serviceGroups.indices {
            let groupID = serviceGroups[groupIndex].id
            for serviceID in serviceGroups[groupIndex].serviceIDs where serviceIDs.contains(serviceID) {
                changes.append(.serviceRemovedFromGroup(service: serviceID, group: groupID))
            }
            serviceGroups[groupIndex].serviceIDs.removeAll { serviceIDs.contains($0) }
        }
        for setIndex in actionSets.indices
        where actionSets[setIndex].actions.contains(where: { characteristicIDs.contains($0.characteristicID) }) {
            actionSets[setIndex].actions.removeAll { characteristicIDs.contains($0.characteristicID) }
            changes.append(
                .actionSetActionsChanged(actionSet: actionSets[setIndex].id, actions: actionSets[setIndex].actions)
            )
        }
        // Bridged accessories go before their bridge, so no change names a bridge that is gone.
        for accessory in removed where accessory.id != id { changes.append(.accessoryRemoved(accessory: accessory.id)) }
        changes.append(.accessoryRemoved(accessory: id))
        accessories.removeAll { removedIDs.contains($0.id) }
        return changes
    }

    // MARK: Changing

    mutating func renameAccessory(
        _ id: UUID,
        to name: String,
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        let index = try accessoryIndex(id)
        let name = try uniqueName(name, for: id, partners: Set(accessories[index].services.map(\.id)), check)
        let old = accessories[index].name
        guard old != name else { return [] }
        accessories[index].name = name
        return [.accessoryRenamed(accessory: id, old: old, new: name)]
    }

    mutating func moveAccessory(_ id: UUID, toRoom roomID: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try accessoryIndex(id)
        _ = try roomIndex(roomID)
        let from = accessories[index].roomID
        guard from != roomID else { return [] }
        accessories[index].roomID = roomID
        return [.accessoryMovedToRoom(accessory: id, from: from, to: roomID)]
    }

    mutating func setReachability(of id: UUID, isReachable: Bool) throws(HomeGraphError) -> [HomeChange] {
        let index = try accessoryIndex(id)
        guard accessories[index].isReachable != isReachable else { return [] }
        accessories[index].isReachable = isReachable
        return [.accessoryReachabilityChanged(accessory: id, isReachable: isReachable)]
    }

    mutating func renameService(_ id: UUID, to name: String, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange]
    {
        let path = try servicePath(id)
        let service = accessories[path.accessory].services[path.service]
        let name =
            service.isHiddenFromPeople
            ? try check.accepted(name)
            : try uniqueName(name, for: id, partners: [accessories[path.accessory].id], check)
        let old = service.name
        guard old != name else { return [] }
        accessories[path.accessory].services[path.service].name = name
        return [.serviceRenamed(service: id, accessory: accessories[path.accessory].id, old: old, new: name)]
    }

    // MARK: Characteristics

    /// The value in the characteristic's format once HAP's checks pass; `isWrite` also needs the write permission.
    ///
    /// Timed writes and authorization data are the transport's business, so only `pw` itself is checked.
    func validatedValue(
        _ value: HAPValue,
        for characteristic: Characteristic,
        isWrite: Bool
    ) throws(HomeGraphError) -> HAPValue {
        let hap = characteristic.hapCharacteristic
        do {
            if isWrite { try hap.checkWritable(isTimedWrite: true, hasAuthorizationData: true) }
            return try hap.normalized(value)
        } catch {
            throw .invalidValue(error, characteristicType: characteristic.type)
        }
    }

    mutating func updateValue(
        of id: UUID,
        to value: HAPValue,
        isWrite: Bool
    ) throws(HomeGraphError) -> [HomeChange] {
        let path = try characteristicPath(id)
        let value = try validatedValue(value, for: self[path], isWrite: isWrite)
        guard self[path].value != value else { return [] }
        self[path].value = value
        return [
            .characteristicValueChanged(characteristic: id, accessory: accessories[path.accessory].id, value: value)
        ]
    }

    mutating func setNotifications(of id: UUID, isEnabled: Bool) throws(HomeGraphError) -> [HomeChange] {
        let path = try characteristicPath(id)
        if isEnabled {
            do {
                try self[path].hapCharacteristic.checkNotifiable()
            } catch {
                throw .invalidValue(error, characteristicType: self[path].type)
            }
        }
        guard self[path].isNotificationEnabled != isEnabled else { return [] }
        self[path].isNotificationEnabled = isEnabled
        let accessoryID = accessories[path.accessory].id
        return [.characteristicNotificationsChanged(characteristic: id, accessory: accessoryID, isEnabled: isEnabled)]
    }
}
