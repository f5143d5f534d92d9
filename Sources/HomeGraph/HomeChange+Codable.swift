import Foundation
import HAPTypes

// The wire form of a change, documented in docs/api/openapi.yaml (`HomeChange`): one flat object whose `type` names
// the change, with a field per value, for example `{"type": "roomAdded", "room": {…}}` or
// `{"type": "roomRenamed", "roomID": "…", "old": "Den", "new": "Study"}`. An added object is under its kind
// (`room`, `accessory`, …), an id of an object under `<kind>ID`.
//
// Hearth up to issue 20 wrote Swift's synthesized enum form, `{"roomAdded": {"_0": {…}}}`, and stores written then
// keep it in the snapshot's recent changes; it is still read.

extension HomeChange {
    /// The kind of a change, as its wire form's `type` names it.
    public enum Kind: String, CaseIterable, Sendable {
        /// Changes of the home itself.
        case homeAdded, homeRemoved, homeBecamePrimary, homeStoppedBeingPrimary, homeRenamed, homeLocationChanged
        /// The home's time zone changed.
        case homeTimeZoneChanged
        /// The home's temperature unit changed.
        case homeTemperatureUnitChanged
        /// Changes of rooms and zones.
        case roomAdded, roomRenamed, roomRemoved, zoneAdded, zoneRenamed, zoneRemoved, roomAddedToZone
        /// A room was taken out of a zone.
        case roomRemovedFromZone
        /// Changes of accessories.
        case accessoryAdded, accessoryRenamed, accessoryMovedToRoom, accessoryRemoved, accessoryReachabilityChanged
        /// Changes of services and characteristics.
        case serviceRenamed, characteristicValueChanged, characteristicNotificationsChanged
        /// Changes of service groups.
        case serviceGroupAdded, serviceGroupRenamed, serviceGroupRemoved, serviceAddedToGroup, serviceRemovedFromGroup
        /// Changes of action sets.
        case actionSetAdded, actionSetRenamed, actionSetRemoved, actionSetActionsChanged
        /// Changes of triggers.
        case triggerAdded, triggerRenamed, triggerRemoved, triggerEnabledChanged, triggerActionSetsChanged
        /// More changes of triggers.
        case triggerDefinitionChanged, triggerStateChanged
        /// Presence: a user's, and the home's radius.
        case userPresenceChanged, homePresenceRadiusChanged
        /// Changes of users.
        case userAdded, userRemoved, userRoleChanged
    }

    /// The change's kind, as its wire form's `type` (`roomAdded`, `characteristicValueChanged`, …).
    public var kind: String { changeKind.rawValue }

    /// The change's kind.
    public var changeKind: Kind {
        switch self {
        case .homeAdded: .homeAdded
        case .homeRemoved: .homeRemoved
        case .homeBecamePrimary: .homeBecamePrimary
        case .homeStoppedBeingPrimary: .homeStoppedBeingPrimary
        case .homeRenamed: .homeRenamed
        case .homeLocationChanged: .homeLocationChanged
        case .homeTimeZoneChanged: .homeTimeZoneChanged
        case .homeTemperatureUnitChanged: .homeTemperatureUnitChanged
        case .roomAdded: .roomAdded
        case .roomRenamed: .roomRenamed
        case .roomRemoved: .roomRemoved
        case .zoneAdded: .zoneAdded
        case .zoneRenamed: .zoneRenamed
        case .zoneRemoved: .zoneRemoved
        case .roomAddedToZone: .roomAddedToZone
        case .roomRemovedFromZone: .roomRemovedFromZone
        case .accessoryAdded: .accessoryAdded
        case .accessoryRenamed: .accessoryRenamed
        case .accessoryMovedToRoom: .accessoryMovedToRoom
        case .accessoryRemoved: .accessoryRemoved
        case .accessoryReachabilityChanged: .accessoryReachabilityChanged
        case .serviceRenamed: .serviceRenamed
        case .characteristicValueChanged: .characteristicValueChanged
        case .characteristicNotificationsChanged: .characteristicNotificationsChanged
        case .serviceGroupAdded: .serviceGroupAdded
        case .serviceGroupRenamed: .serviceGroupRenamed
        case .serviceGroupRemoved: .serviceGroupRemoved
        case .serviceAddedToGroup: .serviceAddedToGroup
        case .serviceRemovedFromGroup: .serviceRemovedFromGroup
        case .actionSetAdded: .actionSetAdded
        case .actionSetRenamed: .actionSetRenamed
        case .actionSetRemoved: .actionSetRemoved
        case .actionSetActionsChanged: .actionSetActionsChanged
        case .triggerAdded: .triggerAdded
        case .triggerRenamed: .triggerRenamed
        case .triggerRemoved: .triggerRemoved
        case .triggerEnabledChanged: .triggerEnabledChanged
        case .triggerActionSetsChanged: .triggerActionSetsChanged
        case .triggerDefinitionChanged: .triggerDefinitionChanged
        case .triggerStateChanged: .triggerStateChanged
        case .userPresenceChanged: .userPresenceChanged
        case .homePresenceRadiusChanged: .homePresenceRadiusChanged
        case .userAdded: .userAdded
        case .userRemoved: .userRemoved
        case .userRoleChanged: .userRoleChanged
        }
    }

    /// The wire form's fields, and the field names of the old synthesized form (`_0`, `room`, `from`, …).
    private enum Key: String, CodingKey {
        case type
        case home, location, timeZone, temperatureUnit
        case room, roomID, zone, zoneID
        case accessory, accessoryID, fromRoomID, toRoomID, isReachable
        case serviceID, characteristicID, value, isEnabled
        case serviceGroup, serviceGroupID
        case actionSet, actionSetID, actions
        case trigger, triggerID, actionSetIDs, definition, state
        case presence, radius
        case user, userID
        case old, new
        // Only in the old form.
        case unnamed = "_0"
        case from, to, service, characteristic, group
    }

    /// Writes the flat form, `{"type": "<kind>", …fields}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(kind, forKey: .type)
        switch self {
        case .homeAdded(let home):
            try container.encode(home, forKey: .home)
        case .homeRemoved, .homeBecamePrimary, .homeStoppedBeingPrimary:
            break
        case .homeRenamed(let old, let new):
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .homeLocationChanged(let location):
            try container.encode(location, forKey: .location)
        case .homeTimeZoneChanged(let identifier):
            try container.encode(identifier, forKey: .timeZone)
        case .homeTemperatureUnitChanged(let unit):
            try container.encode(unit, forKey: .temperatureUnit)
        case .roomAdded(let room):
            try container.encode(room, forKey: .room)
        case .roomRenamed(let room, let old, let new):
            try container.encode(room, forKey: .roomID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .roomRemoved(let room):
            try container.encode(room, forKey: .roomID)
        case .zoneAdded(let zone):
            try container.encode(zone, forKey: .zone)
        case .zoneRenamed(let zone, let old, let new):
            try container.encode(zone, forKey: .zoneID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .zoneRemoved(let zone):
            try container.encode(zone, forKey: .zoneID)
        case .roomAddedToZone(let room, let zone), .roomRemovedFromZone(let room, let zone):
            try container.encode(room, forKey: .roomID)
            try container.encode(zone, forKey: .zoneID)
        case .accessoryAdded(let accessory):
            try container.encode(accessory, forKey: .accessory)
        case .accessoryRenamed(let accessory, let old, let new):
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .accessoryMovedToRoom(let accessory, let from, let to):
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(from, forKey: .fromRoomID)
            try container.encode(to, forKey: .toRoomID)
        case .accessoryRemoved(let accessory):
            try container.encode(accessory, forKey: .accessoryID)
        case .accessoryReachabilityChanged(let accessory, let isReachable):
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(isReachable, forKey: .isReachable)
        case .serviceRenamed(let service, let accessory, let old, let new):
            try container.encode(service, forKey: .serviceID)
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .characteristicValueChanged(let characteristic, let accessory, let value):
            try container.encode(characteristic, forKey: .characteristicID)
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(value, forKey: .value)
        case .characteristicNotificationsChanged(let characteristic, let accessory, let isEnabled):
            try container.encode(characteristic, forKey: .characteristicID)
            try container.encode(accessory, forKey: .accessoryID)
            try container.encode(isEnabled, forKey: .isEnabled)
        case .serviceGroupAdded(let group):
            try container.encode(group, forKey: .serviceGroup)
        case .serviceGroupRenamed(let group, let old, let new):
            try container.encode(group, forKey: .serviceGroupID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .serviceGroupRemoved(let group):
            try container.encode(group, forKey: .serviceGroupID)
        case .serviceAddedToGroup(let service, let group), .serviceRemovedFromGroup(let service, let group):
            try container.encode(service, forKey: .serviceID)
            try container.encode(group, forKey: .serviceGroupID)
        case .actionSetAdded(let actionSet):
            try container.encode(actionSet, forKey: .actionSet)
        case .actionSetRenamed(let actionSet, let old, let new):
            try container.encode(actionSet, forKey: .actionSetID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .actionSetRemoved(let actionSet):
            try container.encode(actionSet, forKey: .actionSetID)
        case .actionSetActionsChanged(let actionSet, let actions):
            try container.encode(actionSet, forKey: .actionSetID)
            try container.encode(actions, forKey: .actions)
        case .triggerAdded(let trigger):
            try container.encode(trigger, forKey: .trigger)
        case .triggerRenamed(let trigger, let old, let new):
            try container.encode(trigger, forKey: .triggerID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .triggerRemoved(let trigger):
            try container.encode(trigger, forKey: .triggerID)
        case .triggerEnabledChanged(let trigger, let isEnabled):
            try container.encode(trigger, forKey: .triggerID)
            try container.encode(isEnabled, forKey: .isEnabled)
        case .triggerActionSetsChanged(let trigger, let actionSetIDs):
            try container.encode(trigger, forKey: .triggerID)
            try container.encode(actionSetIDs, forKey: .actionSetIDs)
        case .triggerDefinitionChanged(let trigger, let definition):
            try container.encode(trigger, forKey: .triggerID)
            try container.encode(definition, forKey: .definition)
        case .triggerStateChanged(let trigger, let state):
            try container.encode(trigger, forKey: .triggerID)
            try container.encode(state, forKey: .state)
        case .userPresenceChanged(let user, let presence):
            try container.encode(user, forKey: .userID)
            try container.encode(presence, forKey: .presence)
        case .homePresenceRadiusChanged(let radius):
            try container.encode(radius, forKey: .radius)
        case .userAdded(let user):
            try container.encode(user, forKey: .user)
        case .userRemoved(let user):
            try container.encode(user, forKey: .userID)
        case .userRoleChanged(let user, let old, let new):
            try container.encode(user, forKey: .userID)
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        }
    }

    /// Reads the flat form, or the synthesized form `{"<kind>": {…}}` that older Hearth wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.type) {
            let text = try container.decode(String.self, forKey: .type)
            guard let kind = Kind(rawValue: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .type,
                    in: container,
                    debugDescription: "'\(text)' is not a kind of change"
                )
            }
            self = try Self(kind, flat: container)
            return
        }
        let synthesized = try decoder.container(keyedBy: KindKey.self)
        guard synthesized.allKeys.count == 1, let old = synthesized.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a change needs a 'type'")
            )
        }
        let fields = try synthesized.nestedContainer(keyedBy: Key.self, forKey: old)
        self = try Self(old.kind, synthesized: fields)
    }

    /// The one key of the synthesized form: the name of a kind.
    private struct KindKey: CodingKey {
        let kind: Kind
        var stringValue: String { kind.rawValue }
        var intValue: Int? { nil }
        init?(stringValue: String) {
            guard let kind = Kind(rawValue: stringValue) else { return nil }
            self.kind = kind
        }
        init?(intValue: Int) { nil }
    }

    private typealias Fields = KeyedDecodingContainer<Key>

    /// Reads the fields of the flat form.
    private init(_ kind: Kind, flat fields: Fields) throws {
        func id(_ key: Key) throws -> UUID { try fields.decode(UUID.self, forKey: key) }
        func text(_ key: Key) throws -> String { try fields.decode(String.self, forKey: key) }
        switch kind {
        case .homeAdded: self = .homeAdded(try fields.decode(Home.self, forKey: .home))
        case .homeRemoved: self = .homeRemoved
        case .homeBecamePrimary: self = .homeBecamePrimary
        case .homeStoppedBeingPrimary: self = .homeStoppedBeingPrimary
        case .homeRenamed: self = .homeRenamed(old: try text(.old), new: try text(.new))
        case .homeLocationChanged:
            self = .homeLocationChanged(try fields.decodeIfPresent(Location.self, forKey: .location))
        case .homeTimeZoneChanged: self = .homeTimeZoneChanged(try text(.timeZone))
        case .homeTemperatureUnitChanged:
            self = .homeTemperatureUnitChanged(try fields.decode(TemperatureUnit.self, forKey: .temperatureUnit))
        case .roomAdded: self = .roomAdded(try fields.decode(Room.self, forKey: .room))
        case .roomRenamed: self = .roomRenamed(room: try id(.roomID), old: try text(.old), new: try text(.new))
        case .roomRemoved: self = .roomRemoved(room: try id(.roomID))
        case .zoneAdded: self = .zoneAdded(try fields.decode(Zone.self, forKey: .zone))
        case .zoneRenamed: self = .zoneRenamed(zone: try id(.zoneID), old: try text(.old), new: try text(.new))
        case .zoneRemoved: self = .zoneRemoved(zone: try id(.zoneID))
        case .roomAddedToZone: self = .roomAddedToZone(room: try id(.roomID), zone: try id(.zoneID))
        case .roomRemovedFromZone: self = .roomRemovedFromZone(room: try id(.roomID), zone: try id(.zoneID))
        case .accessoryAdded: self = .accessoryAdded(try fields.decode(Accessory.self, forKey: .accessory))
        case .accessoryRenamed:
            self = .accessoryRenamed(accessory: try id(.accessoryID), old: try text(.old), new: try text(.new))
        case .accessoryMovedToRoom:
            self = .accessoryMovedToRoom(
                accessory: try id(.accessoryID),
                from: try id(.fromRoomID),
                to: try id(.toRoomID)
            )
        case .accessoryRemoved: self = .accessoryRemoved(accessory: try id(.accessoryID))
        case .accessoryReachabilityChanged:
            self = .accessoryReachabilityChanged(
                accessory: try id(.accessoryID),
                isReachable: try fields.decode(Bool.self, forKey: .isReachable)
            )
        case .serviceRenamed:
            self = .serviceRenamed(
                service: try id(.serviceID),
                accessory: try id(.accessoryID),
                old: try text(.old),
                new: try text(.new)
            )
        case .characteristicValueChanged:
            self = .characteristicValueChanged(
                characteristic: try id(.characteristicID),
                accessory: try id(.accessoryID),
                value: try fields.decode(HAPValue.self, forKey: .value)
            )
        case .characteristicNotificationsChanged:
            self = .characteristicNotificationsChanged(
                characteristic: try id(.characteristicID),
                accessory: try id(.accessoryID),
                isEnabled: try fields.decode(Bool.self, forKey: .isEnabled)
            )
        case .serviceGroupAdded: self = .serviceGroupAdded(try fields.decode(ServiceGroup.self, forKey: .serviceGroup))
        case .serviceGroupRenamed:
            self = .serviceGroupRenamed(group: try id(.serviceGroupID), old: try text(.old), new: try text(.new))
        case .serviceGroupRemoved: self = .serviceGroupRemoved(group: try id(.serviceGroupID))
        case .serviceAddedToGroup:
            self = .serviceAddedToGroup(service: try id(.serviceID), group: try id(.serviceGroupID))
        case .serviceRemovedFromGroup:
            self = .serviceRemovedFromGroup(service: try id(.serviceID), group: try id(.serviceGroupID))
        case .actionSetAdded: self = .actionSetAdded(try fields.decode(ActionSet.self, forKey: .actionSet))
        case .actionSetRenamed:
            self = .actionSetRenamed(actionSet: try id(.actionSetID), old: try text(.old), new: try text(.new))
        case .actionSetRemoved: self = .actionSetRemoved(actionSet: try id(.actionSetID))
        case .actionSetActionsChanged:
            self = .actionSetActionsChanged(
                actionSet: try id(.actionSetID),
                actions: try fields.decode([Action].self, forKey: .actions)
            )
        case .triggerAdded: self = .triggerAdded(try fields.decode(Trigger.self, forKey: .trigger))
        case .triggerRenamed:
            self = .triggerRenamed(trigger: try id(.triggerID), old: try text(.old), new: try text(.new))
        case .triggerRemoved: self = .triggerRemoved(trigger: try id(.triggerID))
        case .triggerEnabledChanged:
            self = .triggerEnabledChanged(
                trigger: try id(.triggerID),
                isEnabled: try fields.decode(Bool.self, forKey: .isEnabled)
            )
        case .triggerActionSetsChanged:
            self = .triggerActionSetsChanged(
                trigger: try id(.triggerID),
                actionSetIDs: try fields.decode([UUID].self, forKey: .actionSetIDs)
            )
        case .triggerDefinitionChanged:
            self = .triggerDefinitionChanged(
                trigger: try id(.triggerID),
                definition: try fields.decode(TriggerDefinition.self, forKey: .definition)
            )
        case .triggerStateChanged:
            self = .triggerStateChanged(
                trigger: try id(.triggerID),
                state: try fields.decode(TriggerState.self, forKey: .state)
            )
        case .userPresenceChanged:
            self = .userPresenceChanged(
                user: try id(.userID),
                presence: try fields.decode(Presence.self, forKey: .presence)
            )
        case .homePresenceRadiusChanged:
            self = .homePresenceRadiusChanged(radius: try fields.decode(Double.self, forKey: .radius))
        case .userAdded: self = .userAdded(try fields.decode(User.self, forKey: .user))
        case .userRemoved: self = .userRemoved(user: try id(.userID))
        case .userRoleChanged:
            self = .userRoleChanged(
                user: try id(.userID),
                old: try fields.decode(UserRole.self, forKey: .old),
                new: try fields.decode(UserRole.self, forKey: .new)
            )
        }
    }

    /// Reads the fields of the synthesized form: the cases' labels, `_0` for an unlabelled value.
    private init(_ kind: Kind, synthesized fields: Fields) throws {
        func id(_ key: Key) throws -> UUID { try fields.decode(UUID.self, forKey: key) }
        func text(_ key: Key) throws -> String { try fields.decode(String.self, forKey: key) }
        func unnamed<T: Decodable>(_ type: T.Type) throws -> T { try fields.decode(T.self, forKey: .unnamed) }
        switch kind {
        case .homeAdded: self = .homeAdded(try unnamed(Home.self))
        case .homeLocationChanged:
            self = .homeLocationChanged(try fields.decodeIfPresent(Location.self, forKey: .unnamed))
        case .homeTimeZoneChanged: self = .homeTimeZoneChanged(try unnamed(String.self))
        case .roomAdded: self = .roomAdded(try unnamed(Room.self))
        case .roomRenamed: self = .roomRenamed(room: try id(.room), old: try text(.old), new: try text(.new))
        case .roomRemoved: self = .roomRemoved(room: try id(.room))
        case .zoneAdded: self = .zoneAdded(try unnamed(Zone.self))
        case .zoneRenamed: self = .zoneRenamed(zone: try id(.zone), old: try text(.old), new: try text(.new))
        case .zoneRemoved: self = .zoneRemoved(zone: try id(.zone))
        case .roomAddedToZone: self = .roomAddedToZone(room: try id(.room), zone: try id(.zone))
        case .roomRemovedFromZone: self = .roomRemovedFromZone(room: try id(.room), zone: try id(.zone))
        case .accessoryAdded: self = .accessoryAdded(try unnamed(Accessory.self))
        case .accessoryRenamed:
            self = .accessoryRenamed(accessory: try id(.accessory), old: try text(.old), new: try text(.new))
        case .accessoryMovedToRoom:
            self = .accessoryMovedToRoom(accessory: try id(.accessory), from: try id(.from), to: try id(.to))
        case .accessoryRemoved: self = .accessoryRemoved(accessory: try id(.accessory))
        case .accessoryReachabilityChanged:
            self = .accessoryReachabilityChanged(
                accessory: try id(.accessory),
                isReachable: try fields.decode(Bool.self, forKey: .isReachable)
            )
        case .serviceRenamed:
            self = .serviceRenamed(
                service: try id(.service),
                accessory: try id(.accessory),
                old: try text(.old),
                new: try text(.new)
            )
        case .characteristicValueChanged:
            self = .characteristicValueChanged(
                characteristic: try id(.characteristic),
                accessory: try id(.accessory),
                value: try fields.decode(HAPValue.self, forKey: .value)
            )
        case .characteristicNotificationsChanged:
            self = .characteristicNotificationsChanged(
                characteristic: try id(.characteristic),
                accessory: try id(.accessory),
                isEnabled: try fields.decode(Bool.self, forKey: .isEnabled)
            )
        case .serviceGroupAdded: self = .serviceGroupAdded(try unnamed(ServiceGroup.self))
        case .serviceGroupRenamed:
            self = .serviceGroupRenamed(group: try id(.group), old: try text(.old), new: try text(.new))
        case .serviceGroupRemoved: self = .serviceGroupRemoved(group: try id(.group))
        case .serviceAddedToGroup: self = .serviceAddedToGroup(service: try id(.service), group: try id(.group))
        case .serviceRemovedFromGroup:
            self = .serviceRemovedFromGroup(service: try id(.service), group: try id(.group))
        case .actionSetAdded: self = .actionSetAdded(try unnamed(ActionSet.self))
        case .actionSetRenamed:
            self = .actionSetRenamed(actionSet: try id(.actionSet), old: try text(.old), new: try text(.new))
        case .actionSetRemoved: self = .actionSetRemoved(actionSet: try id(.actionSet))
        case .actionSetActionsChanged:
            self = .actionSetActionsChanged(
                actionSet: try id(.actionSet),
                actions: try fields.decode([Action].self, forKey: .actions)
            )
        case .triggerAdded: self = .triggerAdded(try unnamed(Trigger.self))
        case .triggerRenamed:
            self = .triggerRenamed(trigger: try id(.trigger), old: try text(.old), new: try text(.new))
        case .triggerRemoved: self = .triggerRemoved(trigger: try id(.trigger))
        case .triggerEnabledChanged:
            self = .triggerEnabledChanged(
                trigger: try id(.trigger),
                isEnabled: try fields.decode(Bool.self, forKey: .isEnabled)
            )
        case .triggerActionSetsChanged:
            self = .triggerActionSetsChanged(
                trigger: try id(.trigger),
                actionSetIDs: try fields.decode([UUID].self, forKey: .actionSetIDs)
            )
        case .userAdded: self = .userAdded(try unnamed(User.self))
        case .userRemoved: self = .userRemoved(user: try id(.user))
        case .userRoleChanged:
            self = .userRoleChanged(
                user: try id(.user),
                old: try fields.decode(UserRole.self, forKey: .old),
                new: try fields.decode(UserRole.self, forKey: .new)
            )
        case .homeRemoved, .homeBecamePrimary, .homeStoppedBeingPrimary, .homeRenamed, .triggerDefinitionChanged,
            .triggerStateChanged, .userPresenceChanged, .homePresenceRadiusChanged, .homeTemperatureUnitChanged:
            self = try Self(kind, flat: fields)
        }
    }
}
