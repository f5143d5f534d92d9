import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import Logging

/// Controlling paired accessories: writes, reads, identify, notifications and removal.
extension Hub {
    /// One characteristic of a request, resolved to its link and HAP id.
    private struct Target: Sendable {
        var characteristic: UUID
        var key: String
        var hapID: CharacteristicID
        var value: HAPValue?
    }

    /// Writes values to characteristics of `homeID` (control right: shared users may), one result per id.
    ///
    /// Each value is checked against the graph first (writable, format, range); the accepted ones are sent to
    /// their accessories, one request per accessory server, and only a value the accessory accepted becomes the
    /// cached value. A success carries the value as recorded. With `refusingInvalid` (a request of the API), one
    /// value the graph refuses throws `.invalidWrite` and nothing is sent; otherwise (a scene) it is that write's
    /// failure and the others go on.
    public func writeCharacteristics(
        home homeID: UUID,
        _ writes: [(characteristic: UUID, value: HAPValue)],
        as caller: HubCaller,
        refusingInvalid: Bool = false
    ) async throws(HubError) -> [UUID: Result<HAPValue, HubError>] {
        try await writeCharacteristics(home: homeID, writes, as: caller, refusingInvalid: refusingInvalid, cascade: 0)
    }

    /// Writes as `writeCharacteristics(home:_:as:refusingInvalid:)`; `cascade` counts the triggers that led to the
    /// writes (0 for a person's), so the values they set reach other triggers only so deep.
    func writeCharacteristics(
        home homeID: UUID,
        _ writes: [(characteristic: UUID, value: HAPValue)],
        as caller: HubCaller,
        refusingInvalid: Bool = false,
        cascade: Int
    ) async throws(HubError) -> [UUID: Result<HAPValue, HubError>] {
        try authorize(.control, inHome: homeID, as: caller)
        guard !isStopped else { throw .stopped }
        guard !writes.isEmpty || !refusingInvalid else { throw .invalidRequest("field 'writes' must not be empty") }
        // One result per characteristic: a characteristic written twice in one request is refused, not collapsed.
        var seen = Set<UUID>()
        for (index, write) in writes.enumerated() where !seen.insert(write.characteristic).inserted {
            throw .invalidRequest(
                "field 'writes[\(index)]': characteristic \(write.characteristic.uuidString) is written twice in one request"
            )
        }
        var results: [UUID: Result<HAPValue, HubError>] = [:]
        var targets: [Target] = []
        for (index, (characteristic, value)) in writes.enumerated() {
            do throws(HubError) {
                let sent: HAPValue
                do {
                    sent = try currentGraph.validatedWrite(value, toCharacteristic: characteristic, inHome: homeID)
                } catch {
                    if refusingInvalid { throw .invalidWrite(index: index, count: writes.count, error) }
                    throw .rejected(error)
                }
                var target = try resolve(characteristic, inHome: homeID)
                target.value = sent
                targets.append(target)
            } catch {
                if case .invalidWrite = error { throw error }
                results[characteristic] = .failure(error)
            }
        }
        let statuses = await send(targets) { paired, items throws(HAPControllerError) in
            try await paired.write(items.compactMap { target in target.value.map { (target.hapID, $0) } })
        }
        var accepted: [(UUID, HAPValue)] = []
        for target in targets {
            guard let value = target.value else { continue }
            switch statuses[target.characteristic] ?? .failure(.accessory(.timedOut)) {
            case .success(let status) where status.isSuccess: accepted.append((target.characteristic, value))
            case .success(let status): results[target.characteristic] = .failure(.accessory(.accessoryRefused(status)))
            case .failure(let error): results[target.characteristic] = .failure(error)
            }
        }
        let operations = accepted.map { id, value in
            HomeOperation.writeCharacteristicValue(home: homeID, characteristic: id, value: value)
        }
        // The accessory took the values: triggers hear of them now, before the commit.
        for (id, value) in accepted {
            automationHeard(home: homeID, characteristic: id, value: value, cascade: cascade)
        }
        // An automation's writes are recorded with the next group commit, beside its trigger's state, as the
        // accessories' own reports are: one transaction per firing, not one per scene. A person's wait for theirs.
        if cascade > 0 {
            accessories.pendingReports += operations
            scheduleFlush()
            for (id, value) in accepted { results[id] = .success(value) }
            return results
        }
        let applied = try applyReports(operations, by: ChangeAuthor(caller))
        for ((id, value), result) in zip(accepted, applied) {
            switch result {
            case .success:
                results[id] = .success(value)
            case .failure(let error): results[id] = .failure(.rejected(error))
            }
        }
        return results
    }

    /// Reads characteristics of `homeID` from their accessories (control right) and records the values read.
    public func readCharacteristics(
        home homeID: UUID,
        _ ids: [UUID],
        as caller: HubCaller
    ) async throws(HubError) -> [UUID: Result<HAPValue?, HubError>] {
        try authorize(.control, inHome: homeID, as: caller)
        guard !isStopped else { throw .stopped }
        var results: [UUID: Result<HAPValue?, HubError>] = [:]
        var targets: [Target] = []
        for id in ids {
            do throws(HubError) {
                let target = try resolve(id, inHome: homeID)
                let characteristic: Characteristic
                do {
                    characteristic = try currentGraph.characteristic(withID: id, inHome: homeID).characteristic
                } catch {
                    throw .rejected(error)
                }
                guard characteristic.permissions.contains(.read) else {
                    throw .rejected(
                        .invalidValue(.notReadable(characteristic.type), characteristicType: characteristic.type)
                    )
                }
                targets.append(target)
            } catch {
                results[id] = .failure(error)
            }
        }
        let reads = await send(targets) { paired, items throws(HAPControllerError) in
            let values = try await paired.read(items.map(\.hapID))
            return values.mapValues { result in
                switch result {
                case .success(let value): ReadOutcome.value(value)
                case .failure(let status): ReadOutcome.refused(status)
                }
            }
        }
        var operations: [HomeOperation] = []
        for target in targets {
            switch reads[target.characteristic] ?? .failure(.accessory(.timedOut)) {
            case .success(.value(let read)):
                var value = read
                if let reported = read {
                    // A value outside the characteristic's own metadata is refused, not recorded nor acted on.
                    do throws(HomeGraphError) {
                        value = try currentGraph.validatedReport(
                            reported,
                            toCharacteristic: target.characteristic,
                            inHome: homeID
                        )
                    } catch {
                        _ = checkedReport(
                            reported,
                            characteristic: target.characteristic,
                            home: homeID,
                            key: target.key
                        )
                        results[target.characteristic] = .failure(.rejected(error))
                        continue
                    }
                }
                results[target.characteristic] = .success(value)
                if let value {
                    automationHeard(
                        home: homeID,
                        characteristic: target.characteristic,
                        value: value,
                        cascade: 0,
                        isEvent: false
                    )
                    operations.append(
                        .updateCharacteristicValue(home: homeID, characteristic: target.characteristic, value: value)
                    )
                }
            case .success(.refused(let status)):
                results[target.characteristic] = .failure(.accessory(.accessoryRefused(status)))
            case .failure(let error):
                results[target.characteristic] = .failure(error)
            }
        }
        try applyReports(operations)
        return results
    }

    /// Runs an action set (a scene) of `homeID` (control right: shared users may): writes all its actions at once,
    /// one request per accessory server, and returns each action's outcome as ``writeCharacteristics(home:_:as:)``.
    public func runActionSet(
        home homeID: UUID,
        actionSet actionSetID: UUID,
        as caller: HubCaller
    ) async throws(HubError) -> [UUID: Result<HAPValue, HubError>] {
        try authorize(.control, inHome: homeID, as: caller)
        guard let home = currentGraph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        guard let actionSet = home.actionSets.first(where: { $0.id == actionSetID }) else {
            throw .rejected(.notFound(.actionSet, actionSetID))
        }
        return try await writeCharacteristics(
            home: homeID,
            actionSet.actions.map { (characteristic: $0.characteristicID, value: $0.targetValue) },
            as: caller
        )
    }

    /// Asks an accessory of `homeID` to identify itself (control right).
    public func identify(home homeID: UUID, accessory accessoryID: UUID, as caller: HubCaller) async throws(HubError) {
        try authorize(.control, inHome: homeID, as: caller)
        let (link, accessory) = try linked(accessoryID, inHome: homeID)
        do {
            try await link.paired.identify(accessoryID: accessory.accessoryInstanceID)
        } catch {
            throw .accessory(error)
        }
    }

    /// Turns events of a characteristic on or off at the accessory and records it (control right).
    public func setNotifications(
        home homeID: UUID,
        characteristic id: UUID,
        isEnabled: Bool,
        as caller: HubCaller
    ) async throws(HubError) {
        try authorize(.control, inHome: homeID, as: caller)
        let operation = HomeOperation.setNotifications(home: homeID, characteristic: id, isEnabled: isEnabled)
        var trial = currentGraph
        do { _ = try trial.apply(operation) } catch { throw .rejected(error) }
        // An accessory with no HAP device (one a bridge to another system reports for) has nothing to subscribe.
        if let found = try? currentGraph.characteristic(withID: id, inHome: homeID), found.accessory.deviceID == nil {
            try commitWhole([operation], by: ChangeAuthor(caller))
            return
        }
        let target = try resolve(id, inHome: homeID)
        guard let link = accessories.links[target.key] else { throw .accessoryNotFound(target.key) }
        let statuses: [CharacteristicID: HAPStatus]
        do {
            statuses =
                isEnabled
                ? try await link.paired.subscribe([target.hapID]) : try await link.paired.unsubscribe([target.hapID])
        } catch {
            throw .accessory(error)
        }
        let status = statuses[target.hapID] ?? .resourceDoesNotExist
        guard status.isSuccess else { throw .accessory(.accessoryRefused(status)) }
        try commitWhole([operation], by: ChangeAuthor(caller))
    }

    /// Removes a paired accessory from `homeID` (configure right): unpairs it, then removes it and, for a bridge,
    /// its bridged accessories from the graph.
    ///
    /// An accessory that cannot be reached is still removed here; the result says the accessory kept the pairing.
    /// A bridged accessory is removed with its bridge: asking for it alone is an `invalidRequest`.
    @discardableResult
    public func removeAccessory(
        home homeID: UUID,
        accessory accessoryID: UUID,
        as caller: HubCaller
    ) async throws(HubError) -> AccessoryRemoval {
        try authorize(.configure, inHome: homeID, as: caller)
        guard !isStopped else { throw .stopped }
        guard let home = currentGraph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        guard let accessory = home.accessories.first(where: { $0.id == accessoryID }) else {
            throw .rejected(.notFound(.accessory, accessoryID))
        }
        guard accessory.bridgeID == nil else {
            throw .invalidRequest("an accessory behind a bridge is removed with its bridge")
        }
        var isUnpaired = false
        if let deviceID = accessory.deviceID {
            let key = deviceKey(deviceID.description)
            if let link = accessories.links.removeValue(forKey: key) {
                for task in link.tasks { task.cancel() }
                do {
                    try await link.paired.unpair()
                    isUnpaired = true
                } catch {
                    logger.warning("could not unpair an accessory; removing it anyway", metadata: ["device": "\(key)"])
                    await link.paired.close()
                }
            }
            do { try await pairingStore().remove(deviceID: key) } catch {
                logger.error("could not forget a removed accessory's pairing", metadata: ["device": "\(key)"])
            }
        }
        let events = try commitWhole(
            [.removeAccessory(home: homeID, accessory: accessoryID)],
            by: ChangeAuthor(caller)
        )
        let removed = events.compactMap { event -> UUID? in
            guard case .accessoryRemoved(let id) = event.change else { return nil }
            return id
        }
        return AccessoryRemoval(removedAccessoryIDs: removed, isUnpairedOnAccessory: isUnpaired)
    }

    // MARK: Helpers

    /// What a read found: a value (possibly null) or the accessory's refusal.
    private enum ReadOutcome: Sendable {
        case value(HAPValue?)
        case refused(HAPStatus)
    }

    /// The link and HAP id of a characteristic of `homeID`.
    private func resolve(_ id: UUID, inHome homeID: UUID) throws(HubError) -> Target {
        let found: (characteristic: Characteristic, accessory: Accessory)
        do { found = try currentGraph.characteristic(withID: id, inHome: homeID) } catch { throw .rejected(error) }
        guard let deviceID = found.accessory.deviceID else { throw .accessoryNotFound(found.accessory.name) }
        let key = deviceKey(deviceID.description)
        guard accessories.links[key] != nil else { throw .accessoryNotFound(key) }
        return Target(
            characteristic: id,
            key: key,
            hapID: CharacteristicID(
                accessoryID: found.accessory.accessoryInstanceID,
                instanceID: found.characteristic.instanceID
            )
        )
    }

    /// The link of an accessory of `homeID`, and the accessory.
    private func linked(_ id: UUID, inHome homeID: UUID) throws(HubError) -> (AccessoryLink, Accessory) {
        guard let home = currentGraph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        guard let accessory = home.accessories.first(where: { $0.id == id }) else {
            throw .rejected(.notFound(.accessory, id))
        }
        guard let deviceID = accessory.deviceID, let link = accessories.links[deviceKey(deviceID.description)]
        else {
            throw .accessoryNotFound(accessory.name)
        }
        return (link, accessory)
    }

    /// Sends one request per accessory server at once, and gives each characteristic its outcome.
    private func send<Outcome: Sendable>(
        _ targets: [Target],
        _ request:
            @escaping @Sendable (PairedAccessory, [Target]) async throws(HAPControllerError) -> [CharacteristicID:
            Outcome]
    ) async -> [UUID: Result<Outcome, HubError>] {
        var byServer: [String: [Target]] = [:]
        for target in targets { byServer[target.key, default: []].append(target) }
        var jobs: [(PairedAccessory, [Target])] = []
        for (key, items) in byServer {
            guard let link = accessories.links[key] else { continue }
            jobs.append((link.paired, items))
        }
        @Sendable func run(
            _ paired: PairedAccessory,
            _ items: [Target]
        ) async -> [UUID: Result<Outcome, HubError>] {
            var outcomes: [UUID: Result<Outcome, HubError>] = [:]
            do throws(HAPControllerError) {
                let answers = try await request(paired, items)
                for item in items {
                    if let answer = answers[item.hapID] {
                        outcomes[item.characteristic] = .success(answer)
                    } else {
                        outcomes[item.characteristic] = .failure(.accessory(.accessoryRefused(.resourceDoesNotExist)))
                    }
                }
            } catch {
                for item in items { outcomes[item.characteristic] = .failure(.accessory(error)) }
            }
            return outcomes
        }
        // One accessory server (a single write, most scenes): no child task to make and wait for.
        if jobs.count == 1, let (paired, items) = jobs.first {
            return await withTaskExecutorPreference(paired.taskExecutor) { await run(paired, items) }
        }
        return await withTaskGroup(of: [UUID: Result<Outcome, HubError>].self) { group in
            for (paired, items) in jobs {
                // On the accessory's own event loop, the request goes out and its answer comes back on one thread.
                group.addTask(executorPreference: paired.taskExecutor) { await run(paired, items) }
            }
            var all: [UUID: Result<Outcome, HubError>] = [:]
            for await outcomes in group { all.merge(outcomes) { first, _ in first } }
            return all
        }
    }
}
