import Foundation

extension Home {
    // MARK: Triggers

    /// The position of the trigger with `id`: in constant time from the positions cache, which is rebuilt (one
    /// pass) only when it does not know the trigger or a removal moved it.
    mutating func triggerIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        if let position = triggerPositions.positions[id], position < triggers.count, triggers[position].id == id {
            return position
        }
        var positions: [UUID: Int] = [:]
        positions.reserveCapacity(triggers.count)
        for (position, trigger) in triggers.enumerated() { positions[trigger.id] = position }
        triggerPositions.positions = positions
        guard let position = positions[id] else { throw .notFound(.trigger, id) }
        return position
    }

    mutating func addTrigger(_ new: Trigger, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        var trigger = new
        trigger.name = try uniqueNameOfNewObject(trigger.name, id: trigger.id, check)
        trigger.actionSetIDs = try validatedActionSets(trigger.actionSetIDs)
        if check == .strict {
            // A new trigger: everything checked, nothing remembered yet.
            try validate(trigger.definition, creatorID: trigger.creatorID)
            if trigger.isEnabled, trigger.definition.isEmpty {
                throw .invalidTrigger(field: "events", problem: "a trigger needs a timer or at least one event")
            }
            trigger.state = TriggerState()
            trigger.note = nil
        }
        // The append clears the index; it is kept, with the new trigger, so the next add checks in constant time.
        var index = nameIndex.index
        triggers.append(trigger)
        index?.insert(name: trigger.name, id: trigger.id)
        nameIndex.index = index
        if !triggerPositions.positions.isEmpty { triggerPositions.positions[trigger.id] = triggers.count - 1 }
        return [.triggerAdded(trigger)]
    }

    mutating func setTriggerDefinition(
        _ id: UUID,
        to definition: TriggerDefinition,
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        let index = try triggerIndex(id)
        if check == .strict { try validate(definition, creatorID: triggers[index].creatorID) }
        if check == .strict, triggers[index].isEnabled, definition.isEmpty {
            throw .invalidTrigger(field: "events", problem: "a trigger needs a timer or at least one event")
        }
        guard triggers[index].definition != definition || triggers[index].note != nil else { return [] }
        triggers[index].definition = definition
        triggers[index].note = nil
        var changes: [HomeChange] = [.triggerDefinitionChanged(trigger: id, definition: definition)]
        // What was remembered belongs to the old definition; the decisions stay, to explain the past.
        let fresh = TriggerState(lastFired: triggers[index].state.lastFired)
        let merged = triggers[index].state.merging(fresh)
        if triggers[index].state != merged {
            triggers[index].state = merged
            changes.append(.triggerStateChanged(trigger: id, state: fresh))
        }
        return changes
    }

    mutating func setTriggerActionSets(_ id: UUID, to actionSetIDs: [UUID]) throws(HomeGraphError) -> [HomeChange] {
        let index = try triggerIndex(id)
        let validated = try validatedActionSets(actionSetIDs)
        guard triggers[index].actionSetIDs != validated else { return [] }
        triggers[index].actionSetIDs = validated
        return [.triggerActionSetsChanged(trigger: id, actionSetIDs: validated)]
    }

    mutating func setTriggerState(_ id: UUID, to update: TriggerState) throws(HomeGraphError) -> [HomeChange] {
        let index = try triggerIndex(id)
        let merged = triggers[index].state.merging(update)
        guard triggers[index].state != merged else { return [] }
        triggers[index].state = merged
        return [.triggerStateChanged(trigger: id, state: update)]
    }

    mutating func setPresence(of userID: UUID, to presence: Presence) throws(HomeGraphError) -> [HomeChange] {
        guard let index = users.firstIndex(where: { $0.id == userID }) else { throw .notFound(.user, userID) }
        if let position = presence.position, !position.isValid { throw .invalidLocation(position) }
        guard users[index].presence != presence else { return [] }
        users[index].presence = presence
        return [.userPresenceChanged(user: userID, presence: presence)]
    }

    mutating func setPresenceRadius(_ radius: Double) throws(HomeGraphError) -> [HomeChange] {
        guard radius.isFinite, Region.radiusRange.contains(radius) else {
            throw .outOfRange(field: "presenceRadius", problem: "the radius must be 10 to 100000 metres")
        }
        guard presenceRadius != radius else { return [] }
        presenceRadius = radius
        return [.homePresenceRadiusChanged(radius: radius)]
    }

    /// The action sets without repeats, once each exists.
    private func validatedActionSets(_ ids: [UUID]) throws(HomeGraphError) -> [UUID] {
        var unique: [UUID] = []
        for actionSetID in ids where !unique.contains(actionSetID) {
            _ = try actionSetIndex(actionSetID)
            unique.append(actionSetID)
        }
        return unique
    }

    mutating func renameTrigger(_ id: UUID, to name: String, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange]
    {
        let index = try triggerIndex(id)
        let name = try uniqueName(name, for: id, check)
        let old = triggers[index].name
        guard old != name else { return [] }
        triggers[index].name = name
        return [.triggerRenamed(trigger: id, old: old, new: name)]
    }

    mutating func removeTrigger(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try triggerIndex(id)
        triggers.remove(at: index)
        return [.triggerRemoved(trigger: id)]
    }

    mutating func enableTrigger(
        _ id: UUID,
        isEnabled: Bool,
        _ check: NameCheck
    ) throws(HomeGraphError)
        -> [HomeChange]
    {
        let index = try triggerIndex(id)
        if check == .strict, isEnabled, triggers[index].definition.isEmpty {
            throw .invalidTrigger(
                field: "isEnabled",
                problem: "the trigger has no timer and no events; give it some before turning it on"
            )
        }
        guard triggers[index].isEnabled != isEnabled else { return [] }
        triggers[index].isEnabled = isEnabled
        return [.triggerEnabledChanged(trigger: id, isEnabled: isEnabled)]
    }
}
