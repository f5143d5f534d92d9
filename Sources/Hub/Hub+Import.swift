import Foundation
import HAPTypes
import HomeGraph

/// Importing a home file (docs/home-file.md): the file's home becomes a home of this hub, in one commit.
extension Hub {
    /// One operation of an import and the field of the file it comes from, for the sentence of a refusal.
    struct ImportStep {
        var operation: HomeOperation
        var field: String
    }

    /// Adds the home of `file` to this hub in one commit, whole or not at all, and returns it.
    ///
    /// Every object keeps the file's id, so scenes, groups and triggers keep pointing at the same things. The
    /// caller (a person) becomes the owner; the file's users are not imported (accounts belong to a hub), and a
    /// trigger about a particular user other than the file's owner is left out. Accessories come in unreachable:
    /// this hub has not paired them, and pairing one again into this home keeps its id. A name the strict checks
    /// refuse, a duplicate id or a reference to nothing is a 400 naming the field of the file; a home already on
    /// this hub is a 409, and so is an accessory server another home of this hub holds.
    public func importHome(_ file: HomeFile, ownerName: String, as caller: HubCaller) async throws(HubError) -> Home {
        guard !isStopped else { throw .stopped }
        let source = file.home
        guard currentGraph.home(withID: source.id) == nil else { throw .conflict("this home is already on this hub") }
        for (index, accessory) in source.accessories.enumerated() {
            guard let deviceID = accessory.deviceID,
                let other = currentGraph.homeID(holdingDevice: deviceKey(deviceID.description)),
                let name = currentGraph.home(withID: other)?.name
            else { continue }
            throw .conflict(
                "field 'home.accessories[\(index)].deviceID': this accessory server is already in the home '\(name)' of this hub"
            )
        }
        let owner: UUID? = if case .user(let id) = caller { id } else { nil }
        let steps = try Self.importSteps(of: source, owner: owner, ownerName: ownerName)
        // Tried on a copy first, so a refusal names the field of the file it comes from; then committed whole.
        var trial = currentGraph
        for step in steps {
            do throws(HomeGraphError) {
                try trial.apply(step.operation)
            } catch {
                throw Self.importRefusal(error, step: step)
            }
        }
        try commitWhole(steps.map(\.operation), by: ChangeAuthor(caller))
        guard let home = currentGraph.home(withID: source.id) else { throw .homeNotFound(source.id) }
        logger.info(
            "imported a home",
            metadata: ["accessories": "\(home.accessories.count)", "triggers": "\(home.triggers.count)"]
        )
        return home
    }

    /// The error of an import step the graph refused: a clash with another home of this hub is a conflict (409),
    /// anything else is the file's fault (400); both name the field.
    static func importRefusal(_ error: HomeGraphError, step: ImportStep) -> HubError {
        var field = step.field
        switch error {
        case .invalidName, .nameTaken: if !field.hasSuffix(".name") { field += ".name" }
        default: break
        }
        // An error that names a field of its own is named once, by the file's field.
        let sentence =
            if case .outOfRange(_, let problem) = error { "field '\(field)': \(problem)" } else {
                "field '\(field)': \(error.sentence)"
            }
        switch (error, step.operation) {
        case (.nameTaken(_, let existing), .addHome) where existing.kind == .home: return .conflict(sentence)
        case (.idTaken, _): return .conflict(sentence + " on this hub")
        default: return .invalidRequest(sentence)
        }
    }

    /// The operations that make `source` a home of this hub, each with the field of the file it comes from.
    ///
    /// Checked here, before the graph sees them: ids unique within the file, one scene of each built-in kind,
    /// the time zone, service names, and the characteristics' values against their metadata.
    static func importSteps(of source: Home, owner: UUID?, ownerName: String) throws(HubError) -> [ImportStep] {
        try checkUniqueIDs(of: source)
        let homeID = source.id
        var builtIns = BuiltInActionSetIDs.random()
        var builtInIndices: [ActionSetKind: Int] = [:]
        for (index, actionSet) in source.actionSets.enumerated() where actionSet.kind.isBuiltIn {
            guard builtInIndices[actionSet.kind] == nil else {
                throw .invalidRequest(
                    "field 'home.actionSets[\(index)].kind': the home has two '\(actionSet.kind.rawValue)' scenes; a home has one of each built-in kind"
                )
            }
            builtInIndices[actionSet.kind] = index
            switch actionSet.kind {
            case .wakeUp: builtIns.wakeUp = actionSet.id
            case .homeDeparture: builtIns.homeDeparture = actionSet.id
            case .homeArrival: builtIns.homeArrival = actionSet.id
            case .sleep: builtIns.sleep = actionSet.id
            case .userDefined: break
            }
        }
        guard TimeZone(identifier: source.timeZoneIdentifier) != nil else {
            throw .invalidRequest(
                "field 'home.timeZoneIdentifier': no time zone is called '\(source.timeZoneIdentifier)'"
            )
        }
        var steps = [
            ImportStep(
                operation: .addHome(
                    id: homeID,
                    name: source.name,
                    roomForEntireHomeID: source.roomForEntireHome.id,
                    timeZoneIdentifier: source.timeZoneIdentifier,
                    builtInActionSetIDs: builtIns
                ),
                field: "home.name"
            )
        ]
        if let owner {
            steps.append(
                ImportStep(operation: .addUser(home: homeID, id: owner, name: ownerName, role: .owner), field: "home")
            )
        }
        if source.roomForEntireHome.name != Room.defaultNameForEntireHome {
            steps.append(
                ImportStep(
                    operation: .renameRoom(
                        home: homeID,
                        room: source.roomForEntireHome.id,
                        name: source.roomForEntireHome.name
                    ),
                    field: "home.roomForEntireHome.name"
                )
            )
        }
        // The built-in scenes take their names first, so a room named "Wake Up" does not meet the default one.
        for kind in ActionSetKind.builtIn {
            guard let index = builtInIndices[kind] else { continue }
            let actionSet = source.actionSets[index]
            guard actionSet.name != kind.builtInName else { continue }
            steps.append(
                ImportStep(
                    operation: .renameActionSet(home: homeID, actionSet: actionSet.id, name: actionSet.name),
                    field: "home.actionSets[\(index)].name"
                )
            )
        }
        for (index, room) in source.rooms.enumerated() {
            steps.append(
                ImportStep(
                    operation: .addRoom(home: homeID, id: room.id, name: room.name),
                    field: "home.rooms[\(index)]"
                )
            )
        }
        for (index, zone) in source.zones.enumerated() {
            steps.append(
                ImportStep(
                    operation: .addZone(home: homeID, id: zone.id, name: zone.name, roomIDs: zone.roomIDs),
                    field: "home.zones[\(index)]"
                )
            )
        }
        steps += try accessorySteps(of: source)
        for (index, group) in source.serviceGroups.enumerated() {
            steps.append(
                ImportStep(
                    operation: .addServiceGroup(
                        home: homeID,
                        id: group.id,
                        name: group.name,
                        serviceIDs: group.serviceIDs
                    ),
                    field: "home.serviceGroups[\(index)]"
                )
            )
        }
        for (index, actionSet) in source.actionSets.enumerated() {
            let field = "home.actionSets[\(index)]"
            if actionSet.kind.isBuiltIn {
                guard !actionSet.actions.isEmpty else { continue }
                steps.append(
                    ImportStep(
                        operation: .setActions(home: homeID, actionSet: actionSet.id, actions: actionSet.actions),
                        field: field + ".actions"
                    )
                )
            } else {
                steps.append(
                    ImportStep(
                        operation: .addActionSet(
                            home: homeID,
                            id: actionSet.id,
                            name: actionSet.name,
                            kind: .userDefined,
                            actions: actionSet.actions
                        ),
                        field: field
                    )
                )
            }
        }
        steps += triggerSteps(of: source, owner: owner)
        if let location = source.location {
            steps.append(
                ImportStep(operation: .setLocation(home: homeID, location: location), field: "home.location")
            )
        }
        if let radius = source.presenceRadius {
            steps.append(
                ImportStep(operation: .setPresenceRadius(home: homeID, radius: radius), field: "home.presenceRadius")
            )
        }
        if let unit = source.temperatureUnit {
            steps.append(
                ImportStep(operation: .setTemperatureUnit(home: homeID, unit: unit), field: "home.temperatureUnit")
            )
        }
        return steps
    }

    /// Throws when two objects of the file share an id, naming the second one's field.
    private static func checkUniqueIDs(of source: Home) throws(HubError) {
        var seen: [UUID: String] = [:]
        func note(_ id: UUID, _ field: String) throws(HubError) {
            if let first = seen[id] {
                throw .invalidRequest("field '\(field)': the id \(id.uuidString) is also the id of '\(first)'")
            }
            seen[id] = field
        }
        try note(source.id, "home.id")
        try note(source.roomForEntireHome.id, "home.roomForEntireHome.id")
        for (index, room) in source.rooms.enumerated() { try note(room.id, "home.rooms[\(index)].id") }
        for (index, zone) in source.zones.enumerated() { try note(zone.id, "home.zones[\(index)].id") }
        for (a, accessory) in source.accessories.enumerated() {
            try note(accessory.id, "home.accessories[\(a)].id")
            for (s, service) in accessory.services.enumerated() {
                try note(service.id, "home.accessories[\(a)].services[\(s)].id")
                for (c, characteristic) in service.characteristics.enumerated() {
                    try note(characteristic.id, "home.accessories[\(a)].services[\(s)].characteristics[\(c)].id")
                }
            }
        }
        for (index, group) in source.serviceGroups.enumerated() {
            try note(group.id, "home.serviceGroups[\(index)].id")
        }
        for (index, actionSet) in source.actionSets.enumerated() {
            try note(actionSet.id, "home.actionSets[\(index)].id")
        }
        for (index, trigger) in source.triggers.enumerated() { try note(trigger.id, "home.triggers[\(index)].id") }
    }

    /// The accessories, unreachable, with their values checked: servers before the accessories behind them.
    private static func accessorySteps(of source: Home) throws(HubError) -> [ImportStep] {
        var servers: [ImportStep] = []
        var bridged: [ImportStep] = []
        for (a, original) in source.accessories.enumerated() {
            var accessory = original
            accessory.isReachable = false
            for s in accessory.services.indices {
                let servicePath = "home.accessories[\(a)].services[\(s)]"
                do throws(HomeGraphError) {
                    _ = try Names.validated(accessory.services[s].name)
                } catch {
                    throw .invalidRequest("field '\(servicePath).name': \(error.sentence)")
                }
                for c in accessory.services[s].characteristics.indices {
                    let characteristic = accessory.services[s].characteristics[c]
                    guard let value = characteristic.value else { continue }
                    do {
                        accessory.services[s].characteristics[c].value = try characteristic.hapCharacteristic
                            .normalized(value)
                    } catch {
                        let problem = HomeGraphError.invalidValue(error, characteristicType: characteristic.type)
                        throw .invalidRequest(
                            "field '\(servicePath).characteristics[\(c)].value': \(problem.sentence)"
                        )
                    }
                }
            }
            let step = ImportStep(
                operation: .addAccessory(home: source.id, accessory: accessory),
                field: "home.accessories[\(a)]"
            )
            if accessory.bridgeID == nil { servers.append(step) } else { bridged.append(step) }
        }
        return servers + bridged
    }

    /// The triggers with their definitions and a fresh state, the file's owner read as the importer; a trigger
    /// about another user of the file is left out (that user is not on this hub).
    private static func triggerSteps(of source: Home, owner: UUID?) -> [ImportStep] {
        let fileOwner = source.users.first { $0.role == .owner }?.id
        let others = source.users.map(\.id).filter { $0 != fileOwner }
        var steps: [ImportStep] = []
        for (index, original) in source.triggers.enumerated() {
            var definition = original.definition
            if let fileOwner, let owner, fileOwner != owner {
                definition = replacingUser(fileOwner, with: owner, in: definition) ?? definition
            }
            if !others.isEmpty, let text = try? JSONEncoder().encode(definition),
                others.contains(where: { String(decoding: text, as: UTF8.self).contains($0.uuidString) })
            {
                continue
            }
            let trigger = Trigger(
                id: original.id,
                name: original.name,
                isEnabled: original.isEnabled,
                actionSetIDs: original.actionSetIDs,
                definition: definition,
                creatorID: owner
            )
            steps.append(
                ImportStep(operation: .addTrigger(home: source.id, trigger: trigger), field: "home.triggers[\(index)]")
            )
        }
        return steps
    }

    /// `definition` with every mention of the user `old` made one of `new`, or `nil` if it cannot be rewritten.
    private static func replacingUser(
        _ old: UUID,
        with new: UUID,
        in definition: TriggerDefinition
    )
        -> TriggerDefinition?
    {
        guard let data = try? JSONEncoder().encode(definition) else { return nil }
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: old.uuidString, with: new.uuidString)
        return try? JSONDecoder().decode(TriggerDefinition.self, from: Data(text.utf8))
    }
}
