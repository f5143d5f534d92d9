import Foundation

/// A copy of some homes kept current from their change events alone, as an app keeps the hub's home.
///
/// Start from homes as the hub sent them, each with its sequence number, then give every event to
/// `apply(_:)` in order. An event that does not follow the last one seen for its home (a gap) is refused and the
/// home must be reloaded (or the missed events asked for); an event already seen is ignored.
public struct HomeMirror: Sendable, Equatable {
    /// The homes, in the order they were added.
    public private(set) var homes: [Home] = []
    /// The sequence number of the last change applied, per home.
    public private(set) var sequences: [UUID: UInt64] = [:]

    /// Makes an empty mirror.
    public init() {}

    /// The primary home, if any.
    public var primaryHome: Home? { homes.first(where: \.isPrimary) }

    /// The home with `id`, if mirrored.
    public func home(withID id: UUID) -> Home? { homes.first { $0.id == id } }

    /// Puts (or replaces) a whole home as of `sequence`, as a reload returns it.
    public mutating func load(_ home: Home, sequence: UInt64) {
        var home = home
        home.restoreValueFormats(home.characteristicFormats)
        if let index = homes.firstIndex(where: { $0.id == home.id }) {
            homes[index] = home
        } else {
            homes.append(home)
        }
        sequences[home.id] = sequence
    }

    /// Forgets a home (the user left it, or it was removed).
    public mutating func forget(_ homeID: UUID) {
        homes.removeAll { $0.id == homeID }
        sequences[homeID] = nil
    }

    /// What applying an event did.
    public enum Outcome: Sendable, Equatable {
        /// The event was applied.
        case applied
        /// The event was seen before; nothing changed.
        case alreadySeen
        /// Events are missing before this one (the last seen is `lastSeen`); nothing changed.
        case gap(lastSeen: UInt64)
    }

    /// Applies one change event if it is the next one of its home.
    @discardableResult
    public mutating func apply(_ event: HomeEvent) -> Outcome {
        let last = sequences[event.homeID] ?? 0
        if event.sequence <= last { return .alreadySeen }
        if case .homeAdded(let home) = event.change {
            // A home's first event carries all of it, whatever came before.
            load(home, sequence: event.sequence)
            return .applied
        }
        guard event.sequence == last + 1, let index = homes.firstIndex(where: { $0.id == event.homeID }) else {
            return .gap(lastSeen: last)
        }
        sequences[event.homeID] = event.sequence
        switch event.change {
        case .homeRemoved:
            homes.remove(at: index)
        case .homeBecamePrimary:
            for other in homes.indices { homes[other].isPrimary = other == index }
        case .homeStoppedBeingPrimary:
            homes[index].isPrimary = false
        case .characteristicValueChanged, .actionSetAdded, .actionSetActionsChanged:
            // Values arrive as JSON numbers: put them back in their characteristics' formats.
            homes[index].apply(event.change.inFormat(homes[index].characteristicFormats))
        default:
            homes[index].apply(event.change)
        }
        return .applied
    }
}

extension Home {
    /// Applies one change that happened inside this home (not `homeAdded`, `homeRemoved` or primary changes).
    public mutating func apply(_ change: HomeChange) {
        switch change {
        case .homeAdded, .homeRemoved, .homeBecamePrimary, .homeStoppedBeingPrimary:
            return
        case .homeRenamed(_, let new): name = new
        case .homeLocationChanged(let location): self.location = location
        case .homeTimeZoneChanged(let identifier): timeZoneIdentifier = identifier
        case .homeTemperatureUnitChanged(let unit): temperatureUnit = unit

        case .roomAdded(let room): rooms.append(room)
        case .roomRenamed(let id, _, let new):
            if roomForEntireHome.id == id {
                roomForEntireHome.name = new
            } else if let index = rooms.firstIndex(where: { $0.id == id }) {
                rooms[index].name = new
            }
        case .roomRemoved(let id):
            rooms.removeAll { $0.id == id }
            for index in zones.indices { zones[index].roomIDs.removeAll { $0 == id } }
            for index in accessories.indices where accessories[index].roomID == id {
                accessories[index].roomID = roomForEntireHome.id
            }
        case .zoneAdded(let zone): zones.append(zone)
        case .zoneRenamed(let id, _, let new): modifyZone(id) { $0.name = new }
        case .zoneRemoved(let id): zones.removeAll { $0.id == id }
        case .roomAddedToZone(let room, let zone):
            modifyZone(zone) { if !$0.roomIDs.contains(room) { $0.roomIDs.append(room) } }
        case .roomRemovedFromZone(let room, let zone): modifyZone(zone) { $0.roomIDs.removeAll { $0 == room } }

        case .accessoryAdded(let accessory): accessories.append(accessory)
        case .accessoryRenamed(let id, _, let new): modifyAccessory(id) { $0.name = new }
        case .accessoryMovedToRoom(let id, _, let to): modifyAccessory(id) { $0.roomID = to }
        case .accessoryRemoved(let id): accessories.removeAll { $0.id == id }
        case .accessoryReachabilityChanged(let id, let isReachable):
            modifyAccessory(id) { $0.isReachable = isReachable }
        case .serviceRenamed(let service, let accessory, _, let new):
            modifyAccessory(accessory) { accessory in
                guard let index = accessory.services.firstIndex(where: { $0.id == service }) else { return }
                accessory.services[index].name = new
            }
        case .characteristicValueChanged(let characteristic, let accessory, let value):
            modifyCharacteristic(characteristic, of: accessory) { $0.value = value }
        case .characteristicNotificationsChanged(let characteristic, let accessory, let isEnabled):
            modifyCharacteristic(characteristic, of: accessory) { $0.isNotificationEnabled = isEnabled }

        case .serviceGroupAdded(let group): serviceGroups.append(group)
        case .serviceGroupRenamed(let id, _, let new): modifyGroup(id) { $0.name = new }
        case .serviceGroupRemoved(let id): serviceGroups.removeAll { $0.id == id }
        case .serviceAddedToGroup(let service, let group):
            modifyGroup(group) { if !$0.serviceIDs.contains(service) { $0.serviceIDs.append(service) } }
        case .serviceRemovedFromGroup(let service, let group):
            modifyGroup(group) { $0.serviceIDs.removeAll { $0 == service } }

        case .actionSetAdded(let actionSet): actionSets.append(actionSet)
        case .actionSetRenamed(let id, _, let new): modifyActionSet(id) { $0.name = new }
        case .actionSetRemoved(let id): actionSets.removeAll { $0.id == id }
        case .actionSetActionsChanged(let id, let actions): modifyActionSet(id) { $0.actions = actions }

        case .triggerAdded(let trigger): triggers.append(trigger)
        case .triggerRenamed(let id, _, let new): modifyTrigger(id) { $0.name = new }
        case .triggerRemoved(let id): triggers.removeAll { $0.id == id }
        case .triggerEnabledChanged(let id, let isEnabled): modifyTrigger(id) { $0.isEnabled = isEnabled }
        case .triggerActionSetsChanged(let id, let actionSetIDs): modifyTrigger(id) { $0.actionSetIDs = actionSetIDs }
        case .triggerDefinitionChanged(let id, let definition):
            modifyTrigger(id) {
                $0.definition = definition
                $0.note = nil
            }
        case .triggerStateChanged(let id, let update): modifyTrigger(id) { $0.state = $0.state.merging(update) }
        case .userPresenceChanged(let id, let presence):
            if let index = users.firstIndex(where: { $0.id == id }) { users[index].presence = presence }
        case .homePresenceRadiusChanged(let radius): presenceRadius = radius

        case .userAdded(let user): users.append(user)
        case .userRemoved(let id): users.removeAll { $0.id == id }
        case .userRoleChanged(let id, _, let new):
            if let index = users.firstIndex(where: { $0.id == id }) { users[index].role = new }
        }
    }

    private mutating func modifyZone(_ id: UUID, _ body: (inout Zone) -> Void) {
        if let index = zones.firstIndex(where: { $0.id == id }) { body(&zones[index]) }
    }

    private mutating func modifyAccessory(_ id: UUID, _ body: (inout Accessory) -> Void) {
        if let index = accessories.firstIndex(where: { $0.id == id }) { body(&accessories[index]) }
    }

    private mutating func modifyCharacteristic(
        _ id: UUID,
        of accessoryID: UUID,
        _ body: (inout Characteristic) -> Void
    ) {
        modifyAccessory(accessoryID) { accessory in
            for serviceIndex in accessory.services.indices {
                let characteristics = accessory.services[serviceIndex].characteristics
                if let index = characteristics.firstIndex(where: { $0.id == id }) {
                    body(&accessory.services[serviceIndex].characteristics[index])
                    return
                }
            }
        }
    }

    private mutating func modifyGroup(_ id: UUID, _ body: (inout ServiceGroup) -> Void) {
        if let index = serviceGroups.firstIndex(where: { $0.id == id }) { body(&serviceGroups[index]) }
    }

    private mutating func modifyActionSet(_ id: UUID, _ body: (inout ActionSet) -> Void) {
        if let index = actionSets.firstIndex(where: { $0.id == id }) { body(&actionSets[index]) }
    }

    private mutating func modifyTrigger(_ id: UUID, _ body: (inout Trigger) -> Void) {
        if let index = triggers.firstIndex(where: { $0.id == id }) { body(&triggers[index]) }
    }
}
