import Foundation

extension Home {
    func serviceGroupIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = serviceGroups.firstIndex(where: { $0.id == id }) else { throw .notFound(.serviceGroup, id) }
        return index
    }

    mutating func addServiceGroup(
        id: UUID,
        name: String,
        serviceIDs: [UUID],
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        try checkNewID(id)
        let name = try uniqueName(name, for: id, check)
        var unique: [UUID] = []
        for serviceID in serviceIDs where !unique.contains(serviceID) {
            _ = try servicePath(serviceID)
            unique.append(serviceID)
        }
        let group = ServiceGroup(id: id, name: name, serviceIDs: unique)
        serviceGroups.append(group)
        return [.serviceGroupAdded(group)]
    }

    mutating func renameServiceGroup(
        _ id: UUID,
        to name: String,
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        let index = try serviceGroupIndex(id)
        let name = try uniqueName(name, for: id, check)
        let old = serviceGroups[index].name
        guard old != name else { return [] }
        serviceGroups[index].name = name
        return [.serviceGroupRenamed(group: id, old: old, new: name)]
    }

    mutating func removeServiceGroup(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try serviceGroupIndex(id)
        serviceGroups.remove(at: index)
        return [.serviceGroupRemoved(group: id)]
    }

    mutating func addService(_ serviceID: UUID, toGroup groupID: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try serviceGroupIndex(groupID)
        _ = try servicePath(serviceID)
        guard !serviceGroups[index].serviceIDs.contains(serviceID) else { return [] }
        serviceGroups[index].serviceIDs.append(serviceID)
        return [.serviceAddedToGroup(service: serviceID, group: groupID)]
    }

    mutating func removeService(_ serviceID: UUID, fromGroup groupID: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try serviceGroupIndex(groupID)
        _ = try servicePath(serviceID)
        guard serviceGroups[index].serviceIDs.contains(serviceID) else { return [] }
        serviceGroups[index].serviceIDs.removeAll { $0 == serviceID }
        return [.serviceRemovedFromGroup(service: serviceID, group: groupID)]
    }
}
