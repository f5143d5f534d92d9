import Foundation
import HAPTypes

extension HomeGraph {
    /// Carries out one operation: checks everything first, then changes the graph and lists the changes.
    ///
    /// `names` says whether names are checked as a new write's or only normalised, as a replayed one's.
    mutating func perform(_ operation: HomeOperation, names check: NameCheck) throws(HomeGraphError) -> Changes {
        switch operation {
        case .addHome(let id, let name, let roomID, let timeZone, let builtIns):
            return try addHome(
                id: id,
                name: name,
                roomForEntireHomeID: roomID,
                timeZoneIdentifier: timeZone,
                builtInActionSetIDs: builtIns,
                check
            )
        case .removeHome(let id): return try removeHome(id)
        case .setPrimaryHome(let id): return try setPrimaryHome(id)
        case .renameHome(let id, let name): return try renameHome(id, name: name, check)
        case .setLocation(let h, let location):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setLocation(location)
            }
        case .setTimeZone(let h, let identifier):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setTimeZone(identifier)
            }
        case .setTemperatureUnit(let h, let unit):
            return try modifyHome(h) { home throws(HomeGraphError) in
                home.setTemperatureUnit(unit)
            }

        case .addRoom(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addRoom(id: id, name: name, check)
            }
        case .renameRoom(let h, let room, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameRoom(room, to: name, check)
            }
        case .removeRoom(let h, let room):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeRoom(room)
            }
        case .addZone(let h, let id, let name, let rooms):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addZone(id: id, name: name, roomIDs: rooms, check)
            }
        case .renameZone(let h, let zone, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameZone(zone, to: name, check)
            }
        case .removeZone(let h, let zone):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeZone(zone)
            }
        case .addRoomToZone(let h, let room, let zone):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addRoom(room, toZone: zone)
            }
        case .removeRoomFromZone(let h, let room, let zone):
            return try modifyHome(h) { home throws(HomeGraphError) in try home.removeRoom(room, fromZone: zone) }

        case .addAccessory(let h, let accessory):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addAccessory(accessory, check)
            }
        case .renameAccessory(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameAccessory(id, to: name, check)
            }
        case .moveAccessory(let h, let id, let room):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.moveAccessory(id, toRoom: room)
            }
        case .removeAccessory(let h, let id):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeAccessory(id)
            }
        case .setReachability(let h, let id, let isReachable):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setReachability(of: id, isReachable: isReachable)
            }
        case .renameService(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameService(id, to: name, check)
            }
        case .updateCharacteristicValue(let h, let id, let value):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.updateValue(of: id, to: value, isWrite: false)
            }
        case .writeCharacteristicValue(let h, let id, let value):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.updateValue(of: id, to: value, isWrite: true)
            }
        case .setNotifications(let h, let id, let isEnabled):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setNotifications(of: id, isEnabled: isEnabled)
            }

        case .addServiceGroup(let h, let id, let name, let services):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addServiceGroup(id: id, name: name, serviceIDs: services, check)
            }
        case .renameServiceGroup(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameServiceGroup(id, to: name, check)
            }
        case .removeServiceGroup(let h, let id):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeServiceGroup(id)
            }
        case .addServiceToGroup(let h, let service, let group):
            return try modifyHome(h) { home throws(HomeGraphError) in try home.addService(service, toGroup: group) }
        case .removeServiceFromGroup(let h, let service, let group):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeService(service, fromGroup: group)
            }

        case .addActionSet(let h, let id, let name, let kind, let actions):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addActionSet(id: id, name: name, kind: kind, actions: actions, check)
            }
        case .renameActionSet(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameActionSet(id, to: name, check)
            }
        case .removeActionSet(let h, let id):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeActionSet(id, check)
            }
        case .setActions(let h, let id, let actions):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setActions(of: id, to: actions)
            }

        case .addTrigger(let h, let trigger):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addTrigger(trigger, check)
            }
        case .renameTrigger(let h, let id, let name):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.renameTrigger(id, to: name, check)
            }
        case .removeTrigger(let h, let id):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeTrigger(id)
            }
        case .enableTrigger(let h, let id, let isEnabled):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.enableTrigger(id, isEnabled: isEnabled, check)
            }
        case .setTriggerDefinition(let h, let id, let definition):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setTriggerDefinition(id, to: definition, check)
            }
        case .setTriggerActionSets(let h, let id, let actionSetIDs):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setTriggerActionSets(id, to: actionSetIDs)
            }
        case .setTriggerState(let h, let id, let state):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setTriggerState(id, to: state)
            }
        case .setPresence(let h, let user, let presence):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setPresence(of: user, to: presence)
            }
        case .setPresenceRadius(let h, let radius):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setPresenceRadius(radius)
            }

        case .addUser(let h, let id, let name, let role):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.addUser(id: id, name: name, role: role, check)
            }
        case .removeUser(let h, let id):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.removeUser(id)
            }
        case .setRole(let h, let id, let role):
            return try modifyHome(h) { home throws(HomeGraphError) in
                try home.setRole(of: id, to: role)
            }
        }
    }
}
