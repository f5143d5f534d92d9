import Foundation

extension HomeGraph {
    func homeIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = homes.firstIndex(where: { $0.id == id }) else { throw .notFound(.home, id) }
        return index
    }

    /// Throws when `name` breaks a naming rule or another home than `owner` has it; returns it normalised.
    func uniqueHomeName(_ name: String, for owner: UUID, _ check: NameCheck) throws(HomeGraphError) -> String {
        let accepted = try check.accepted(name)
        guard check == .strict else { return accepted }
        let key = Names.key(accepted)
        if let other = homes.first(where: { $0.id != owner && Names.key($0.name) == key }) {
            throw .nameTaken(name: accepted, existing: ObjectReference(.home, other.id))
        }
        return accepted
    }

    mutating func addHome(
        id: UUID,
        name: String,
        roomForEntireHomeID: UUID,
        timeZoneIdentifier: String,
        builtInActionSetIDs: BuiltInActionSetIDs?,
        _ check: NameCheck
    ) throws(HomeGraphError) -> Changes {
        let name = try uniqueHomeName(name, for: id, check)
        guard id != roomForEntireHomeID else { throw .idTaken(ObjectReference(.home, id)) }
        let actionSets = builtInActionSetIDs.map(Home.builtInActionSets) ?? []
        var seen: Set<UUID> = [id, roomForEntireHomeID]
        for actionSet in actionSets where !seen.insert(actionSet.id).inserted {
            let kind: ObjectKind = actionSet.id == id ? .home : actionSet.id == roomForEntireHomeID ? .room : .actionSet
            throw .idTaken(ObjectReference(kind, actionSet.id))
        }
        guard TimeZone(identifier: timeZoneIdentifier) != nil else { throw .invalidTimeZone(timeZoneIdentifier) }
        let home = Home(
            id: id,
            name: name,
            isPrimary: homes.isEmpty,
            timeZoneIdentifier: timeZoneIdentifier,
            roomForEntireHome: Room(id: roomForEntireHomeID, name: Room.defaultNameForEntireHome),
            actionSets: actionSets
        )
        homes.append(home)
        var changes: Changes = [(id, .homeAdded(home))]
        if home.isPrimary { changes.append((id, .homeBecamePrimary)) }
        return changes
    }

    mutating func removeHome(_ id: UUID) throws(HomeGraphError) -> Changes {
        let index = try homeIndex(id)
        let wasPrimary = homes[index].isPrimary
        homes.remove(at: index)
        var changes: Changes = [(id, .homeRemoved)]
        if wasPrimary, !homes.isEmpty {
            homes[0].isPrimary = true
            changes.append((homes[0].id, .homeBecamePrimary))
        }
        return changes
    }

    mutating func setPrimaryHome(_ id: UUID) throws(HomeGraphError) -> Changes {
        let index = try homeIndex(id)
        guard !homes[index].isPrimary else { return [] }
        var changes: Changes = []
        if let previous = homes.firstIndex(where: \.isPrimary) {
            homes[previous].isPrimary = false
            changes.append((homes[previous].id, .homeStoppedBeingPrimary))
        }
        homes[index].isPrimary = true
        changes.append((id, .homeBecamePrimary))
        return changes
    }

    mutating func renameHome(_ id: UUID, name: String, _ check: NameCheck) throws(HomeGraphError) -> Changes {
        let index = try homeIndex(id)
        let name = try uniqueHomeName(name, for: id, check)
        let old = homes[index].name
        guard old != name else { return [] }
        homes[index].name = name
        return [(id, .homeRenamed(old: old, new: name))]
    }
}

extension Home {
    mutating func setLocation(_ location: Location?) throws(HomeGraphError) -> [HomeChange] {
        if let location, !location.isValid { throw .invalidLocation(location) }
        guard self.location != location else { return [] }
        self.location = location
        return [.homeLocationChanged(location)]
    }

    mutating func setTemperatureUnit(_ unit: TemperatureUnit) -> [HomeChange] {
        guard temperatureUnit != unit else { return [] }
        temperatureUnit = unit
        return [.homeTemperatureUnitChanged(unit)]
    }

    mutating func setTimeZone(_ identifier: String) throws(HomeGraphError) -> [HomeChange] {
        guard TimeZone(identifier: identifier) != nil else { throw .invalidTimeZone(identifier) }
        guard timeZoneIdentifier != identifier else { return [] }
        timeZoneIdentifier = identifier
        return [.homeTimeZoneChanged(identifier)]
    }
}
