import Foundation

extension Home {
    // MARK: Action sets

    func actionSetIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = actionSets.firstIndex(where: { $0.id == id }) else { throw .notFound(.actionSet, id) }
        return index
    }

    /// The actions with values in their characteristics' formats, once each is a valid write of its own target.
    func validatedActions(_ actions: [Action]) throws(HomeGraphError) -> [Action] {
        var seen: Set<UUID> = []
        var validated: [Action] = []
        for action in actions {
            guard seen.insert(action.characteristicID).inserted else {
                throw .duplicateAction(characteristicID: action.characteristicID)
            }
            let characteristic = self[try characteristicPath(action.characteristicID)]
            let value = try validatedValue(action.targetValue, for: characteristic, isWrite: true)
            validated.append(Action(characteristicID: action.characteristicID, targetValue: value))
        }
        return validated
    }

    mutating func addActionSet(
        id: UUID,
        name: String,
        kind: ActionSetKind,
        actions: [Action],
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        try checkNewID(id)
        let name = try uniqueName(name, for: id, check)
        if kind.isBuiltIn, let existing = actionSets.first(where: { $0.kind == kind }) {
            throw .builtInActionSetExists(kind, existing: existing.id)
        }
        let actionSet = ActionSet(id: id, name: name, kind: kind, actions: try validatedActions(actions))
        actionSets.append(actionSet)
        return [.actionSetAdded(actionSet)]
    }

    mutating func renameActionSet(
        _ id: UUID,
        to name: String,
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        let index = try actionSetIndex(id)
        let name = try uniqueName(name, for: id, check)
        let old = actionSets[index].name
        guard old != name else { return [] }
        actionSets[index].name = name
        return [.actionSetRenamed(actionSet: id, old: old, new: name)]
    }

    /// Removes an action set that is not built in; a replayed removal of a built-in one is still carried out (logs
    /// written before built-in scenes were fixed may hold one).
    mutating func removeActionSet(_ id: UUID, _ check: NameCheck) throws(HomeGraphError) -> [HomeChange] {
        let index = try actionSetIndex(id)
        let actionSet = actionSets[index]
        if actionSet.kind.isBuiltIn, check == .strict {
            throw .builtInActionSetNotRemovable(actionSet.kind, name: actionSet.name, id: id)
        }
        var changes: [HomeChange] = []
        for triggerIndex in triggers.indices where triggers[triggerIndex].actionSetIDs.contains(id) {
            triggers[triggerIndex].actionSetIDs.removeAll { $0 == id }
            let trigger = triggers[triggerIndex]
            changes.append(.triggerActionSetsChanged(trigger: trigger.id, actionSetIDs: trigger.actionSetIDs))
        }
        actionSets.remove(at: index)
        changes.append(.actionSetRemoved(actionSet: id))
        return changes
    }

    mutating func setActions(of id: UUID, to actions: [Action]) throws(HomeGraphError) -> [HomeChange] {
        let index = try actionSetIndex(id)
        let actions = try validatedActions(actions)
        guard actionSets[index].actions != actions else { return [] }
        actionSets[index].actions = actions
        return [.actionSetActionsChanged(actionSet: id, actions: actions)]
    }
}
