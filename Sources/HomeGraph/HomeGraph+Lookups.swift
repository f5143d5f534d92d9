import Foundation
import HAPTypes

extension HomeGraph {
    /// The characteristic `id` of the home `homeID` and the accessory it belongs to.
    public func characteristic(
        withID id: UUID,
        inHome homeID: UUID
    ) throws(HomeGraphError) -> (characteristic: Characteristic, accessory: Accessory) {
        let home = homes[try homeIndex(homeID)]
        let path = try home.characteristicPath(id)
        return (home[path], home.accessories[path.accessory])
    }

    /// The value to send when writing `value` to a characteristic, in its format, or why the write is refused.
    ///
    /// The hub checks a write with this before sending it, and applies `writeCharacteristicValue` once the
    /// accessory accepted it; the graph itself does not change here.
    public func validatedWrite(
        _ value: HAPValue,
        toCharacteristic id: UUID,
        inHome homeID: UUID
    ) throws(HomeGraphError) -> HAPValue {
        let home = homes[try homeIndex(homeID)]
        return try home.validatedValue(value, for: home[try home.characteristicPath(id)], isWrite: true)
    }

    /// `value` as the graph would record it when the accessory reports it (format and metadata checked, no
    /// permission needed); throws what recording it would throw.
    public func validatedReport(
        _ value: HAPValue,
        toCharacteristic id: UUID,
        inHome homeID: UUID
    ) throws(HomeGraphError) -> HAPValue {
        let home = homes[try homeIndex(homeID)]
        return try home.validatedValue(value, for: home[try home.characteristicPath(id)], isWrite: false)
    }

    /// Throws when an id the operation gives a new object already belongs to an object of any home.
    mutating func checkNewIDsAcrossHomes(of operation: HomeOperation) throws(HomeGraphError) {
        for id in operation.newObjectIDs {
            // Each home's index answers at once; only a taken id is looked up to name its kind.
            for index in homes.indices where homes[index].mayHaveObject(withID: id) {
                if let kind = homes[index].kindOfObject(withID: id) { throw .idTaken(ObjectReference(kind, id)) }
            }
        }
    }
}

extension HomeOperation {
    /// The ids the operation gives to objects it creates.
    var newObjectIDs: [UUID] {
        switch self {
        case .addHome(let id, _, let roomID, _, let builtIns): [id, roomID] + (builtIns?.byKind.map(\.id) ?? [])
        case .addRoom(_, let id, _), .addZone(_, let id, _, _), .addServiceGroup(_, let id, _, _),
            .addActionSet(_, let id, _, _, _):
            [id]
        // A user's id is the person's: the same person may be a user of several homes (checked within the home).
        case .addUser: []
        case .addTrigger(_, let trigger): [trigger.id]
        case .addAccessory(_, let accessory):
            [accessory.id] + accessory.services.flatMap { [$0.id] + $0.characteristics.map(\.id) }
        case .removeHome, .setPrimaryHome, .renameHome, .setLocation, .setTimeZone, .setTemperatureUnit, .renameRoom,
            .removeRoom,
            .renameZone, .removeZone, .addRoomToZone, .removeRoomFromZone, .renameAccessory, .moveAccessory,
            .removeAccessory, .setReachability, .renameService, .updateCharacteristicValue, .writeCharacteristicValue,
            .setNotifications, .renameServiceGroup, .removeServiceGroup, .addServiceToGroup, .removeServiceFromGroup,
            .renameActionSet, .removeActionSet, .setActions, .renameTrigger, .removeTrigger, .enableTrigger,
            .setTriggerDefinition, .setTriggerActionSets, .setTriggerState, .setPresence, .setPresenceRadius,
            .removeUser, .setRole:
            []
        }
    }
}

extension HomeOperation {
    /// The home the operation changes; `nil` for adding a home, whose id is not yet a home's.
    public var homeID: UUID? {
        switch self {
        case .addHome: nil
        case .removeHome(let id), .setPrimaryHome(let id), .renameHome(let id, _): id
        case .setLocation(let h, _), .setTimeZone(let h, _), .setTemperatureUnit(let h, _), .addRoom(let h, _, _),
            .renameRoom(let h, _, _),
            .removeRoom(let h, _), .addZone(let h, _, _, _), .renameZone(let h, _, _), .removeZone(let h, _),
            .addRoomToZone(let h, _, _), .removeRoomFromZone(let h, _, _), .addAccessory(let h, _),
            .renameAccessory(let h, _, _), .moveAccessory(let h, _, _), .removeAccessory(let h, _),
            .setReachability(let h, _, _), .renameService(let h, _, _), .updateCharacteristicValue(let h, _, _),
            .writeCharacteristicValue(let h, _, _), .setNotifications(let h, _, _), .addServiceGroup(let h, _, _, _),
            .renameServiceGroup(let h, _, _), .removeServiceGroup(let h, _), .addServiceToGroup(let h, _, _),
            .removeServiceFromGroup(let h, _, _), .addActionSet(let h, _, _, _, _), .renameActionSet(let h, _, _),
            .removeActionSet(let h, _), .setActions(let h, _, _), .addTrigger(let h, _), .renameTrigger(let h, _, _),
            .removeTrigger(let h, _), .enableTrigger(let h, _, _), .addUser(let h, _, _, _), .removeUser(let h, _),
            .setRole(let h, _, _), .setTriggerDefinition(let h, _, _), .setTriggerActionSets(let h, _, _),
            .setTriggerState(let h, _, _), .setPresence(let h, _, _), .setPresenceRadius(let h, _):
            h
        }
    }
}
