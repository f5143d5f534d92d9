import AtomicFiles
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import Logging
import NIOCore

/// What paired accessories report to the hub: values (group-committed), reachability, database changes and
/// advertisements.
extension Hub {
    /// One event of a link: values go to the group commit, database changes are followed.
    func accessoryEvent(_ event: AccessoryEvent, key: String) async {
        switch event {
        case .valuesChanged(let changes):
            report(changes, key: key)
        case .databaseChanged(let database):
            await follow(database, key: key)
        case .invalidEvent(let error):
            logger.debug("an accessory sent an unusable event", metadata: ["device": "\(key)", "error": "\(error)"])
        }
    }

    /// Queues value updates from the accessory server `key` for the next group commit.
    func report(_ changes: [CharacteristicValueChange], key: String) {
        guard let link = accessories.links[key] else { return }
        for change in changes {
            guard let reported = change.value, let id = link.index[change.id],
                let value = checkedReport(reported, characteristic: id, home: link.homeID, key: key)
            else { continue }
            accessories.pendingReports.append(
                .updateCharacteristicValue(home: link.homeID, characteristic: id, value: value)
            )
            automationHeard(home: link.homeID, characteristic: id, value: value, cascade: 0)
        }
        scheduleFlush()
    }

    /// A reported value as the graph records it, or `nil` (logged) when it fails the characteristic's own format
    /// or metadata: an accessory is input like any other, and neither the graph nor a trigger acts on such a value.
    func checkedReport(_ value: HAPValue, characteristic id: UUID, home homeID: UUID, key: String) -> HAPValue? {
        do {
            return try currentGraph.validatedReport(value, toCharacteristic: id, inHome: homeID)
        } catch {
            logger.notice(
                "an accessory reported a value its own metadata does not allow; it is not recorded",
                metadata: [
                    "device": "\(key)", "characteristic": "\(id)", "value": "\(value)", "error": "\(error.code)",
                ]
            )
            return nil
        }
    }

    /// Applies value updates from an accessory server as its events would: in the next group commit.
    ///
    /// For bridges to other systems and for benchmarks; links call the same path. Unknown ids are ignored.
    public func accessoryReported(deviceID: String, changes: [CharacteristicValueChange]) {
        report(changes, key: deviceKey(deviceID))
    }

    /// Commits every report queued so far now, without waiting for the group commit's window.
    ///
    /// A commit of reports queues nothing more itself (the engine decides on a report before its commit), so one
    /// commit empties the queue; anything queued meanwhile goes with the next window.
    public func commitReports() {
        cancelFlush()
        commitPending()
        scheduleFlush()
    }

    /// Arms the group commit: the reports queued within the window are committed together, on the hub's loop.
    func scheduleFlush() {
        guard accessories.flush == nil, !accessories.pendingReports.isEmpty, !isStopped else { return }
        accessories.flushNumber &+= 1
        accessories.flush = eventLoop.scheduleTask(in: TimeAmount(configuration.reportWindow)) {
            [weak self, number = accessories.flushNumber] in
            self?.runOnLoop(number) { hub, number in
                guard hub.accessories.flushNumber == number else { return }
                hub.accessories.flush = nil
                hub.commitPending()
                hub.scheduleFlush()
            }
        }
    }

    /// Disarms the group commit's timer, including one that fell due in this loop tick.
    func cancelFlush() {
        accessories.flush?.cancel()
        accessories.flush = nil
        accessories.flushNumber &+= 1
    }

    /// Commits the queued reports in one transaction.
    func commitPending() {
        let batch = takePendingReports()
        guard !batch.isEmpty else { return }
        do {
            try applyReports(batch)
        } catch {
            logger.error(
                "saving value reports failed",
                metadata: ["count": "\(batch.count)", "error": "\(error.code)"]
            )
        }
    }

    /// A link's reachability: every accessory of the server follows it; on reconnect the database is read again.
    func reachabilityChanged(_ reachable: Bool, key: String) async {
        guard let link = accessories.links[key], link.isReachable != reachable else { return }
        accessories.links[key]?.isReachable = reachable
        for accessory in currentGraph.accessories(ofDevice: key, inHome: link.homeID) {
            accessories.pendingReports.append(
                .setReachability(home: link.homeID, accessory: accessory.id, isReachable: reachable)
            )
        }
        scheduleFlush()
        guard reachable else { return }
        // Back after a loss (or a restart): the accessory may have changed while we could not see its c#.
        do {
            let database = try await link.paired.reloadDatabase()
            await follow(database, key: key)
        } catch {
            logger.debug("reading the database after a reconnect failed", metadata: ["device": "\(key)"])
        }
    }

    /// Makes the graph follow an accessory server's database: bridged accessories added and removed (existing
    /// ones keep their ids), values brought up to date.
    func follow(_ database: AccessoryDatabase, key: String) async {
        guard let link = accessories.links[key] else { return }
        let homeID = link.homeID
        let current = currentGraph.accessories(ofDevice: key, inHome: homeID)
        guard let server = current.first(where: { $0.bridgeID == nil }) else { return }
        let byInstance = Dictionary(
            current.map { ($0.accessoryInstanceID, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let present = Set(database.accessories.map(\.accessoryID))
        var operations: [HomeOperation] = []
        for accessory in current where accessory.bridgeID != nil && !present.contains(accessory.accessoryInstanceID) {
            operations.append(.removeAccessory(home: homeID, accessory: accessory.id))
        }
        let added = AccessoryDatabase(
            accessories: database.accessories.filter { byInstance[$0.accessoryID] == nil && $0.accessoryID != 1 }
        )
        if !added.accessories.isEmpty {
            do {
                operations += try importOperations(
                    added,
                    home: homeID,
                    room: server.roomID,
                    deviceID: key,
                    category: nil,
                    bridge: server,
                    after: operations
                )
            } catch {
                logger.error("could not import accessories added to a bridge", metadata: ["error": "\(error.code)"])
            }
        }
        for hapAccessory in database.accessories {
            guard let known = byInstance[hapAccessory.accessoryID] else { continue }
            for service in hapAccessory.services {
                for characteristic in service.characteristics {
                    guard let reported = characteristic.value,
                        let graphCharacteristic = known.characteristics.first(where: {
                            $0.instanceID == characteristic.instanceID
                        }),
                        let value = checkedReport(
                            reported,
                            characteristic: graphCharacteristic.id,
                            home: homeID,
                            key: key
                        ),
                        graphCharacteristic.value != value
                    else { continue }
                    operations.append(
                        .updateCharacteristicValue(home: homeID, characteristic: graphCharacteristic.id, value: value)
                    )
                }
            }
        }
        // Values read back after a reconnect are news to the triggers too (motion while the hub was away).
        for case .updateCharacteristicValue(let home, let id, let value) in operations {
            automationHeard(home: home, characteristic: id, value: value, cascade: 0, isEvent: false)
        }
        do { try applyReports(operations) } catch { logger.error("following a database change failed") }
        accessories.links[key]?.index = currentGraph.characteristicIndex(ofDevice: key, inHome: homeID)
        let newIDs = Set(
            operations.compactMap { operation -> UUID? in
                guard case .addAccessory(_, let accessory) = operation else { return nil }
                return accessory.id
            }
        )
        if !newIDs.isEmpty { await subscribeNotifying(key: key, onlyEnabled: false, accessoryIDs: newIDs) }
    }

    /// What the browser (or another source of advertisements) says about an accessory server.
    ///
    /// A new address moves the link there; a new configuration number (`c#`) reads the database again, and the
    /// graph follows it. Browsing calls this; a caller that learns of an advertisement another way may too.
    public func noteAdvertisement(deviceID: String, host: String?, port: Int?, configurationNumber: Int) async {
        let key = deviceKey(deviceID)
        guard let link = accessories.links[key] else { return }
        if let host, let port { await link.paired.noteAddress(host: host, port: port) }
        let previous = link.configurationNumber
        guard previous != configurationNumber else { return }
        accessories.links[key]?.configurationNumber = configurationNumber
        await link.paired.noteConfigurationNumber(configurationNumber)
        if let store = accessories.pairingStore {
            do { try await store.save(await link.paired.currentRecord) } catch {
                logger.warning("could not save an accessory's new address", metadata: ["device": "\(key)"])
            }
        }
        // With a known previous number the client reads the database and reports it as an event; without one
        // it only notes the number, so read it here.
        guard previous == nil else { return }
        do {
            let database = try await link.paired.reloadDatabase()
            await follow(database, key: key)
        } catch {
            logger.debug("reading a changed database failed", metadata: ["device": "\(key)"])
        }
    }

    func browsed(_ event: AccessoryBrowseEvent) async {
        publishNearby(event)
        switch event {
        case .found(let accessory), .updated(let accessory):
            await noteAdvertisement(
                deviceID: accessory.deviceID,
                host: accessory.host,
                port: accessory.port,
                configurationNumber: accessory.configurationNumber
            )
        case .removed:
            break
        }
    }
}
