import Foundation
import HAPTypes

/// One change to the home graph, applied whole or not at all by `HomeGraph.apply(_:)`.
///
/// New objects carry ids chosen by the caller (the hub, or a test), so the caller knows them before applying.
public enum HomeOperation: Sendable, Equatable, Codable {
    // MARK: Homes

    /// Adds a home with its room for the entire home and, given their ids, its four built-in scenes (Wake Up,
    /// Leave Home, Arrive Home, Sleep); the first home becomes primary.
    ///
    /// `builtInActionSetIDs` is `nil` in logs written before homes had built-in scenes: such a home starts without
    /// them, as it did then, and the hub adds them when it starts.
    case addHome(
        id: UUID,
        name: String,
        roomForEntireHomeID: UUID,
        timeZoneIdentifier: String = "UTC",
        builtInActionSetIDs: BuiltInActionSetIDs? = nil
    )
    /// Removes a home and everything in it; if it was primary, the first remaining home becomes primary.
    case removeHome(UUID)
    /// Makes a home the primary one.
    case setPrimaryHome(UUID)
    /// Renames a home; home names are unique among homes.
    case renameHome(UUID, name: String)
    /// Sets or clears where a home is.
    case setLocation(home: UUID, location: Location?)
    /// Sets the time zone a home's clock times are in.
    case setTimeZone(home: UUID, identifier: String)
    /// Sets the unit the home's people say and read temperatures in; values stay in Celsius.
    case setTemperatureUnit(home: UUID, unit: TemperatureUnit)

    // MARK: Rooms and zones

    /// Adds a room.
    case addRoom(home: UUID, id: UUID, name: String)
    /// Renames a room, the room for the entire home included.
    case renameRoom(home: UUID, room: UUID, name: String)
    /// Removes a room: its accessories move to the room for the entire home and it leaves every zone.
    case removeRoom(home: UUID, room: UUID)
    /// Adds a zone of existing rooms.
    case addZone(home: UUID, id: UUID, name: String, roomIDs: [UUID] = [])
    /// Renames a zone.
    case renameZone(home: UUID, zone: UUID, name: String)
    /// Removes a zone; its rooms stay.
    case removeZone(home: UUID, zone: UUID)
    /// Puts a room in a zone.
    case addRoomToZone(home: UUID, room: UUID, zone: UUID)
    /// Takes a room out of a zone.
    case removeRoomFromZone(home: UUID, room: UUID, zone: UUID)

    // MARK: Accessories

    /// Adds an accessory with its services and characteristics (see `Accessory.init(importing:…)`).
    case addAccessory(home: UUID, accessory: Accessory)
    /// Renames an accessory.
    case renameAccessory(home: UUID, accessory: UUID, name: String)
    /// Moves an accessory to another room.
    case moveAccessory(home: UUID, accessory: UUID, room: UUID)
    /// Removes an accessory, and the accessories behind it if it is a bridge, from groups and action sets too.
    case removeAccessory(home: UUID, accessory: UUID)
    /// Marks an accessory reachable or not.
    case setReachability(home: UUID, accessory: UUID, isReachable: Bool)
    /// Renames a service.
    case renameService(home: UUID, service: UUID, name: String)
    /// Records a value the accessory reported (read or event), checked against the characteristic's metadata.
    case updateCharacteristicValue(home: UUID, characteristic: UUID, value: HAPValue)
    /// Records a value the accessory accepted from a write: the characteristic must also be writable.
    case writeCharacteristicValue(home: UUID, characteristic: UUID, value: HAPValue)
    /// Records whether events of a characteristic are on; turning them on needs the notify permission.
    case setNotifications(home: UUID, characteristic: UUID, isEnabled: Bool)

    // MARK: Service groups

    /// Adds a service group of existing services.
    case addServiceGroup(home: UUID, id: UUID, name: String, serviceIDs: [UUID] = [])
    /// Renames a service group.
    case renameServiceGroup(home: UUID, group: UUID, name: String)
    /// Removes a service group; its services stay.
    case removeServiceGroup(home: UUID, group: UUID)
    /// Adds a service of any accessory to a group.
    case addServiceToGroup(home: UUID, service: UUID, group: UUID)
    /// Takes a service out of a group.
    case removeServiceFromGroup(home: UUID, service: UUID, group: UUID)

    // MARK: Action sets

    /// Adds an action set; at most one of each built-in kind.
    case addActionSet(home: UUID, id: UUID, name: String, kind: ActionSetKind = .userDefined, actions: [Action] = [])
    /// Renames an action set.
    case renameActionSet(home: UUID, actionSet: UUID, name: String)
    /// Removes an action set and takes it out of every trigger; a built-in one cannot be removed.
    case removeActionSet(home: UUID, actionSet: UUID)
    /// Replaces an action set's actions; each must write a writable characteristic with a valid value.
    case setActions(home: UUID, actionSet: UUID, actions: [Action])

    // MARK: Triggers

    /// Adds a trigger that runs existing action sets.
    case addTrigger(home: UUID, trigger: Trigger)
    /// Renames a trigger.
    case renameTrigger(home: UUID, trigger: UUID, name: String)
    /// Removes a trigger.
    case removeTrigger(home: UUID, trigger: UUID)
    /// Turns a trigger on or off; one without a timer or events cannot be turned on.
    case enableTrigger(home: UUID, trigger: UUID, isEnabled: Bool)
    /// Replaces a trigger's definition (checked like a new trigger's); its remembered state starts over.
    case setTriggerDefinition(home: UUID, trigger: UUID, definition: TriggerDefinition)
    /// Replaces the action sets a trigger runs.
    case setTriggerActionSets(home: UUID, trigger: UUID, actionSetIDs: [UUID])
    /// Records what the hub remembers of a trigger between firings (the hub's own operation): the state's fields
    /// replace the trigger's, its decisions are added to the trigger's (`TriggerState.merging(_:)`).
    case setTriggerState(home: UUID, trigger: UUID, state: TriggerState)
    /// Records whether a user is home and where they are, as they reported it.
    case setPresence(home: UUID, user: UUID, presence: Presence)
    /// Sets the radius in metres of the circle around the home's location that counts as home.
    case setPresenceRadius(home: UUID, radius: Double)

    // MARK: Users

    /// Adds a user; a home has at most one owner.
    case addUser(home: UUID, id: UUID, name: String, role: UserRole)
    /// Removes a user.
    case removeUser(home: UUID, user: UUID)
    /// Changes a user's role; a home has at most one owner.
    case setRole(home: UUID, user: UUID, role: UserRole)
}
