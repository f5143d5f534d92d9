import Foundation

extension Home {
    // MARK: Rooms

    /// The position of room `id` in `rooms`, or `nil` for the room for the entire home.
    func roomIndex(_ id: UUID) throws(HomeGraphError) -> Int? {
        if id == roomForEntireHome.id { return nil }
        guard let index = rooms.firstIndex(where: { $0.id == id }) else { throw .notFound(.room, id) }
        return index
    }

    mutating func addRoom(id: UUID, name: String, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        try checkNewID(id)
        let room = Room(id: id, name: try uniqueName(name, for: id, check))
        rooms.append(room)
        return [.roomAdded(room)]
    }

    mutating func renameRoom(_ id: UUID, to name: String, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        let index = try roomIndex(id)
        let name = try uniqueName(name, for: id, check)
        let old = index.map { rooms[$0].name } ?? roomForEntireHome.name
        guard old != name else { return [] }
        if let index { rooms[index].name = name } else { roomForEntireHome.name = name }
        return [.roomRenamed(room: id, old: old, new: name)]
    }

    mutating func removeRoom(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        guard let index = try roomIndex(id) else { throw .roomForEntireHome(id) }
        var changes: [HomeChange] = []
        for accessoryIndex in accessories.indices where accessories[accessoryIndex].roomID == id {
            accessories[accessoryIndex].roomID = roomForEntireHome.id
            changes.append(
                .accessoryMovedToRoom(accessory: accessories[accessoryIndex].id, from: id, to: roomForEntireHome.id)
            )
        }
        for zoneIndex in zones.indices where zones[zoneIndex].roomIDs.contains(id) {
            zones[zoneIndex].roomIDs.removeAll { $0 == id }
            changes.append(.roomRemovedFromZone(room: id, zone: zones[zoneIndex].id))
        }
        rooms.remove(at: index)
        changes.append(.roomRemoved(room: id))
        return changes
    }

    // MARK: Zones

    func zoneIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = zones.firstIndex(where: { $0.id == id }) else { throw .notFound(.zone, id) }
        return index
    }

    /// Throws unless `id` is a room that may be in a zone: one of `rooms`, not the room for the entire home.
    func checkZoneableRoom(_ id: UUID) throws(HomeGraphError) {
        guard try roomIndex(id) != nil else { throw .roomForEntireHome(id) }
    }

    mutating func addZone(
        id: UUID,
        name: String,
        roomIDs: [UUID],
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        try checkNewID(id)
        let name = try uniqueName(name, for: id, check)
        var unique: [UUID] = []
        for roomID in roomIDs where !unique.contains(roomID) {
            try checkZoneableRoom(roomID)
            unique.append(roomID)
        }
        let zone = Zone(id: id, name: name, roomIDs: unique)
        zones.append(zone)
        return [.zoneAdded(zone)]
    }

    mutating func renameZone(_ id: UUID, to name: String, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        let index = try zoneIndex(id)
        let name = try uniqueName(name, for: id, check)
        let old = zones[index].name
        guard old != name else { return [] }
        zones[index].name = name
        return [.zoneRenamed(zone: id, old: old, new: name)]
    }

    mutating func removeZone(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try zoneIndex(id)
        zones.remove(at: index)
        return [.zoneRemoved(zone: id)]
    }

    mutating func addRoom(_ roomID: UUID, toZone zoneID: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try zoneIndex(zoneID)
        try checkZoneableRoom(roomID)
        guard !zones[index].roomIDs.contains(roomID) else { return [] }
        zones[index].roomIDs.append(roomID)
        return [.roomAddedToZone(room: roomID, zone: zoneID)]
    }

    mutating func removeRoom(_ roomID: UUID, fromZone zoneID: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try zoneIndex(zoneID)
        _ = try roomIndex(roomID)
        guard zones[index].roomIDs.contains(roomID) else { return [] }
        zones[index].roomIDs.removeAll { $0 == roomID }
        return [.roomRemovedFromZone(room: roomID, zone: zoneID)]
    }
}
