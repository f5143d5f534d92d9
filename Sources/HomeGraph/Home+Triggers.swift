import Foundation

extension Home {
    // MARK: Triggers

    func triggerIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = triggers.firstIndex(where: { $0.id == id }) else { throw .notFound(.trigger, id) }
        return index
    }

    mutating func addTrigger(_ new: Trigger, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        var trigger = new
        try checkNewID(trigger.id)
        trigger.name = try uniqueName(trigger.name, for: trigger.id, check)
        var unique: [UUID] = []
        for actionSetID in trigger.actionSetIDs where !unique.contains(actionSetID) {
            _ = try actionSetIndex(actionSetID)
            unique.append(actionSetID)
        }
        trigger.actionSetIDs = unique
        triggers.append(trigger)
        return [.triggerAdded(trigger)]
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

    mutating func enableTrigger(_ id: UUID, isEnabled: Bool) throws(HomeGraphError) -> [HomeChange] {
        let index = try triggerIndex(id)
        guard triggers[index].isEnabled != isEnabled else { return [] }
        triggers[index].isEnabled = isEnabled
        return [.triggerEnabledChanged(trigger: id, isEnabled: isEnabled)]
    }
}
