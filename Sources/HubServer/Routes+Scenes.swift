import Foundation
import HearthAPI
import HomeGraph

extension Routes {
    /// Service groups, action sets (scenes) and triggers.
    func addSceneRoutes() {
        addServiceGroupRoutes()
        add(Endpoints.listActionSets) { call, _ in
            ActionSetList(actionSets: try await call.home(try call.homeID).home.actionSets)
        }
        add(Endpoints.createActionSet) { call, body in
            let (homeID, id) = (try call.homeID, UUID())
            let events = try await call.perform(
                .addActionSet(
                    home: homeID,
                    id: id,
                    name: body.name,
                    kind: body.kind ?? .userDefined,
                    actions: body.actions ?? []
                )
            )
            return try call.created(events)
        }
        add(Endpoints.getActionSetOfKind) { call, _ in
            let kindText = call.text("kind")
            let builtIn = ActionSetKind.builtIn.map(\.rawValue).joined(separator: ", ")
            guard let kind = ActionSetKind(rawValue: kindText), kind.isBuiltIn else {
                throw APIError.invalidRequest(
                    "kind '\(APIError.shown(kindText))' is not a built-in kind; use one of \(builtIn)"
                )
            }
            guard let actionSet = try await call.home(try call.homeID).home.actionSet(ofKind: kind) else {
                throw APIError(.notFound, code: "notFound", message: "the home has no '\(kind.rawValue)' action set")
            }
            return ActionSetResponse(actionSet: actionSet)
        }
        add(Endpoints.updateActionSet) { call, body in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID"))
            let operations: [HomeOperation?] = [
                body.name.map { .renameActionSet(home: homeID, actionSet: actionSetID, name: $0) },
                body.actions.map { .setActions(home: homeID, actionSet: actionSetID, actions: $0) },
            ]
            return call.changed(try await call.perform(operations.compactMap { $0 }))
        }
        add(Endpoints.deleteActionSet) { call, _ in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID"))
            return call.changed(try await call.perform(.removeActionSet(home: homeID, actionSet: actionSetID)))
        }
        add(Endpoints.runActionSet) { call, _ in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID"))
            guard try await call.home(homeID).home.actionSets.contains(where: { $0.id == actionSetID }) else {
                throw APIError.notFound("actionSet", actionSetID.uuidString)
            }
            return WriteResults(results: try await call.runActionSet(actionSetID, home: homeID))
        }
        add(Endpoints.listTriggers) { call, _ in
            TriggerList(triggers: try await call.home(try call.homeID).home.triggers)
        }
        add(Endpoints.createTrigger) { call, body in
            let homeID = try call.homeID
            let trigger = Trigger(
                id: UUID(),
                name: body.name,
                isEnabled: body.isEnabled ?? true,
                actionSetIDs: body.actionSetIDs ?? [],
                definition: body.definition ?? TriggerDefinition(),
                creatorID: call.principal.userID
            )
            let events = try await call.perform(.addTrigger(home: homeID, trigger: trigger))
            return try call.created(events)
        }
        add(Endpoints.getTrigger) { call, _ in
            TriggerResponse(trigger: try await call.trigger())
        }
        add(Endpoints.listTriggerDecisions) { call, _ in
            TriggerDecisionList(decisions: try await call.trigger().state.decisions.reversed())
        }
        add(Endpoints.updateTrigger) { call, body in
            let (homeID, triggerID) = (try call.homeID, try call.id("triggerID"))
            let operations: [HomeOperation?] = [
                body.name.map { .renameTrigger(home: homeID, trigger: triggerID, name: $0) },
                body.definition.map { .setTriggerDefinition(home: homeID, trigger: triggerID, definition: $0) },
                body.actionSetIDs.map { .setTriggerActionSets(home: homeID, trigger: triggerID, actionSetIDs: $0) },
                // Last: a trigger given its first events in this request may be turned on by it.
                body.isEnabled.map { .enableTrigger(home: homeID, trigger: triggerID, isEnabled: $0) },
            ]
            return call.changed(try await call.perform(operations.compactMap { $0 }))
        }
        add(Endpoints.deleteTrigger) { call, _ in
            let (homeID, triggerID) = (try call.homeID, try call.id("triggerID"))
            return call.changed(try await call.perform(.removeTrigger(home: homeID, trigger: triggerID)))
        }
    }

    /// Service groups and their services.
    private func addServiceGroupRoutes() {
        add(Endpoints.listServiceGroups) { call, _ in
            ServiceGroupList(serviceGroups: try await call.home(try call.homeID).home.serviceGroups)
        }
        add(Endpoints.createServiceGroup) { call, body in
            let (homeID, id) = (try call.homeID, UUID())
            let events = try await call.perform(
                .addServiceGroup(home: homeID, id: id, name: body.name, serviceIDs: body.serviceIDs ?? [])
            )
            return try call.created(events)
        }
        add(Endpoints.renameServiceGroup) { call, body in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID"))
            return call.changed(
                try await call.perform(.renameServiceGroup(home: homeID, group: groupID, name: body.name))
            )
        }
        add(Endpoints.deleteServiceGroup) { call, _ in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID"))
            return call.changed(try await call.perform(.removeServiceGroup(home: homeID, group: groupID)))
        }
        add(Endpoints.addServiceToGroup) { call, _ in
            let (homeID, groupID, serviceID) = (try call.homeID, try call.id("groupID"), try call.id("serviceID"))
            return call.changed(
                try await call.perform(.addServiceToGroup(home: homeID, service: serviceID, group: groupID))
            )
        }
        add(Endpoints.removeServiceFromGroup) { call, _ in
            let (homeID, groupID, serviceID) = (try call.homeID, try call.id("groupID"), try call.id("serviceID"))
            return call.changed(
                try await call.perform(.removeServiceFromGroup(home: homeID, service: serviceID, group: groupID))
            )
        }
    }
}

extension Call {
    /// The trigger in the path, in a home of the caller's; 404 when there is none.
    func trigger() async throws -> Trigger {
        let (homeID, triggerID) = (try homeID, try id("triggerID"))
        guard let trigger = try await home(homeID).home.triggers.first(where: { $0.id == triggerID }) else {
            throw APIError.notFound("trigger", triggerID.uuidString)
        }
        return trigger
    }
}
