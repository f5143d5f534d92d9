import AtomicFiles
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import Logging

/// The accessory half of the hub: pairing, links to paired accessories, values, reachability and database changes.
extension Hub {
    // MARK: Starting and stopping

    /// Connects every accessory in the controller's pairing store and starts browsing on the configured interfaces.
    ///
    /// Accessories that cannot be reached are retried in the background with the link's backoff; `start()` does
    /// not wait for them.
    public func start() async throws(HubError) {
        guard !isStopped else { throw .stopped }
        guard !accessories.isStarted else { return }
        accessories.isStarted = true
        let store = try pairingStore()
        let records: [PairedAccessoryRecord]
        let identity: ControllerIdentity
        do {
            records = try await store.accessories()
            identity = try await store.identity()
        } catch {
            throw .accessory(.store(error))
        }
        for record in records {
            let key = deviceKey(record.deviceID)
            guard let homeID = currentGraph.homeID(holdingDevice: key) else {
                // Paired, but the hub stopped before the accessory reached the graph: give the accessory back.
                logger.warning("a paired accessory is in no home; removing the pairing", metadata: ["device": "\(key)"])
                forgetOrphan(record, identity: identity, store: store)
                continue
            }
            let paired = makeClient(record, identity: identity)
            install(paired, key: key, homeID: homeID, isReachable: nil)
            accessories.links[key]?.tasks.append(connectTask(paired, key: key))
        }
        startAutomation()
        if !configuration.interfaces.isEmpty {
            let browser = AccessoryBrowser(
                interfaces: configuration.interfaces,
                group: eventLoop,
                logger: logger
            )
            do {
                try await browser.start()
            } catch {
                logger.error("browsing for accessories failed to start", metadata: ["error": "\(error)"])
                throw .internalError("browsing for accessories failed to start: \(error)")
            }
            accessories.browser = browser
            let events = browser.events
            accessories.browserTask = Task(executorPreference: taskExecutor) { [weak self] in
                for await event in events { await self?.browsed(event) }
            }
        }
    }

    /// Closes every accessory link and the browser, and commits the reports still waiting.
    func stopAccessories() async {
        accessories.isClosing = true
        let links = accessories.links
        accessories.links = [:]
        for link in links.values {
            for task in link.tasks { task.cancel() }
            await link.paired.close()
        }
        if let browser = accessories.browser {
            await browser.stop()
            accessories.browserTask?.cancel()
            accessories.browser = nil
            accessories.browserTask = nil
        }
        accessories.nearbySubscribers = [:]
        cancelFlush()
        commitPending()
    }

    /// The device IDs of the accessory servers the hub keeps links to.
    public var linkedDeviceIDs: [String] { accessories.links.keys.sorted() }

    // MARK: Discovering and pairing

    /// The unpaired accessories the browser sees nearby, for owners and administrators of any home.
    public func discoveredAccessories(as caller: HubCaller) async throws(HubError) -> [DiscoveredAccessory] {
        guard mayAddAccessories(caller) else { throw .notPermitted("only owners and administrators add accessories") }
        guard let browser = accessories.browser else { return [] }
        return await browser.accessories.values.filter { !$0.isPaired }.sorted { $0.name < $1.name }
    }

    /// Pairs the nearby accessory `deviceID` (from ``discoveredAccessories(as:)``) and adds it to `homeID`.
    @discardableResult
    public func pairAccessory(
        home homeID: UUID,
        deviceID: String,
        setupCode: SetupCode,
        room roomID: UUID? = nil,
        as caller: HubCaller
    ) async throws(HubError) -> [Accessory] {
        try authorize(.configure, inHome: homeID, as: caller)
        guard let browser = accessories.browser else { throw .accessoryNotFound(deviceID) }
        let nearby = await browser.accessories
        guard let found = nearby[deviceKey(deviceID)] ?? nearby[deviceID], let host = found.host else {
            throw .accessoryNotFound(deviceID)
        }
        return try await pair(
            home: homeID,
            host: host,
            port: found.port,
            setupCode: setupCode,
            room: roomID,
            advertised: found,
            by: ChangeAuthor(caller)
        )
    }

    /// Pairs the accessory at `host`:`port` with `setupCode` and adds it (a bridge: with each bridged accessory)
    /// to `homeID`, in `roomID` or the room for the entire home; returns the accessories added.
    ///
    /// A wrong setup code throws `.accessory(.wrongSetupCode)` and changes nothing.
    @discardableResult
    public func pairAccessory(
        home homeID: UUID,
        host: String,
        port: Int,
        setupCode: SetupCode,
        room roomID: UUID? = nil,
        as caller: HubCaller
    ) async throws(HubError) -> [Accessory] {
        try authorize(.configure, inHome: homeID, as: caller)
        return try await pair(
            home: homeID,
            host: host,
            port: port,
            setupCode: setupCode,
            room: roomID,
            advertised: nil,
            by: ChangeAuthor(caller)
        )
    }

    private func pair(
        home homeID: UUID,
        host: String,
        port: Int,
        setupCode: SetupCode,
        room roomID: UUID?,
        advertised: DiscoveredAccessory?,
        by author: ChangeAuthor
    ) async throws(HubError) -> [Accessory] {
        guard !isStopped else { throw .stopped }
        guard let home = currentGraph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        let room = roomID ?? home.roomForEntireHome.id
        guard home.allRooms.contains(where: { $0.id == room }) else { throw .rejected(.notFound(.room, room)) }
        let store = try pairingStore()
        let identity: ControllerIdentity
        do { identity = try await store.identity() } catch { throw .accessory(.store(error)) }
        let client = AccessoryPairingClient(
            timeouts: configuration.pairingTimeouts,
            eventLoopGroup: eventLoop,
            logger: logger
        )
        let pairing: AccessoryPairing
        do {
            pairing = try await client.pairSetup(host: host, port: port, setupCode: setupCode, identity: identity)
        } catch {
            throw .accessory(error)
        }
        let key = deviceKey(pairing.deviceID)
        var record = PairedAccessoryRecord(pairing: pairing, host: host, port: port)
        record.configurationNumber = advertised?.configurationNumber
        let paired = makeClient(record, identity: identity)
        if let existingHome = currentGraph.homeID(holdingDevice: key) {
            // Paired again (the accessory was reset, or lost our pairing): the accessories it already has keep
            // their ids, in the home they are in.
            guard existingHome == homeID else {
                do { try await paired.unpair() } catch { await paired.close() }
                throw .invalidRequest("this accessory is already in another home")
            }
            return try await repair(paired, record: record, key: key, homeID: homeID, store: store)
        }
        do throws(HubError) {
            do { try await store.save(record) } catch { throw .accessory(.store(error)) }
            let database: AccessoryDatabase
            do {
                try await paired.connect()
                database = try await paired.accessories()
            } catch {
                throw .accessory(error)
            }
            let operations = try importOperations(
                database,
                home: homeID,
                room: room,
                deviceID: key,
                category: advertised?.category
            )
            try commitWhole(operations, by: author)
        } catch {
            // Undo the pairing, so the accessory can be paired again and nothing is left behind.
            do { try await paired.unpair() } catch { await paired.close() }
            do { try await store.remove(deviceID: pairing.deviceID) } catch {
                logger.error("could not forget an undone pairing", metadata: ["device": "\(key)"])
            }
            throw error
        }
        install(paired, key: key, homeID: homeID, isReachable: true)
        accessories.links[key]?.configurationNumber = advertised?.configurationNumber
        await subscribeNotifying(key: key, onlyEnabled: false)
        logger.info("paired an accessory", metadata: ["device": "\(key)"])
        return currentGraph.accessories(ofDevice: key, inHome: homeID)
    }

    /// Takes a new pairing of an accessory server whose accessories are already in the graph: the old link goes,
    /// the new one follows the database (ids kept) and everything is subscribed again.
    private func repair(
        _ paired: PairedAccessory,
        record: PairedAccessoryRecord,
        key: String,
        homeID: UUID,
        store: ControllerPairingStore
    ) async throws(HubError) -> [Accessory] {
        if let old = accessories.links.removeValue(forKey: key) {
            for task in old.tasks { task.cancel() }
            await old.paired.close()
        }
        let database: AccessoryDatabase
        do {
            try await store.save(record)
        } catch {
            do { try await paired.unpair() } catch { await paired.close() }
            throw .accessory(.store(error))
        }
        do {
            try await paired.connect()
            database = try await paired.accessories()
        } catch {
            // Keep the pairing and the link: it reconnects like any other once the accessory answers.
            install(paired, key: key, homeID: homeID, isReachable: false)
            accessories.links[key]?.tasks.append(connectTask(paired, key: key))
            throw .accessory(error)
        }
        install(paired, key: key, homeID: homeID, isReachable: true)
        for accessory in currentGraph.accessories(ofDevice: key, inHome: homeID) {
            accessories.pendingReports.append(
                .setReachability(home: homeID, accessory: accessory.id, isReachable: true)
            )
        }
        commitReports()
        await follow(database, key: key)
        await subscribeNotifying(key: key, onlyEnabled: true)
        logger.info("paired an accessory again", metadata: ["device": "\(key)"])
        return currentGraph.accessories(ofDevice: key, inHome: homeID)
    }

    /// The `addAccessory` operations for a database: the server's own accessory first, then each bridged one.
    func importOperations(
        _ database: AccessoryDatabase,
        home homeID: UUID,
        room roomID: UUID,
        deviceID key: String,
        category: AccessoryCategory?,
        bridge: Accessory? = nil,
        after earlier: [HomeOperation] = []
    ) throws(HubError) -> [HomeOperation] {
        let catalog: TypeCatalog
        do { catalog = try TypeCatalog.shared() } catch { throw .internalError("the type catalog could not be read") }
        let deviceID = try? DeviceID(key)
        var trial = currentGraph
        for operation in earlier { _ = try? trial.apply(operation) }
        var operations: [HomeOperation] = []
        var bridgeID = bridge?.id
        let ordered = database.accessories.sorted { $0.accessoryID < $1.accessoryID }
        for hapAccessory in ordered {
            let isServer = hapAccessory.accessoryID == 1
            if isServer && bridge != nil { continue }
            let accessoryCategory =
                isServer
                ? (category ?? (ordered.count > 1 ? .bridge : .guessed(from: hapAccessory)))
                : .guessed(from: hapAccessory)
            var ids = SystemIDGenerator()
            var accessory = Accessory(
                importing: hapAccessory,
                roomID: roomID,
                category: accessoryCategory,
                deviceID: deviceID,
                bridgeID: isServer ? nil : bridgeID,
                catalog: catalog,
                ids: &ids
            )
            let base = accessory.name
            var attempt = 1
            while true {
                let operation = HomeOperation.addAccessory(home: homeID, accessory: accessory)
                do {
                    _ = try trial.apply(operation)
                    operations.append(operation)
                    break
                } catch {
                    // A name another object of the home has: number it, as the Home app does.
                    guard case .nameTaken = error, attempt < 1000 else { throw .rejected(error) }
                    attempt += 1
                    accessory.name = Names.numbered(base, attempt)
                }
            }
            if isServer { bridgeID = accessory.id }
        }
        return operations
    }

    // MARK: Links

    /// The controller's pairing store in `<state>/controller`, made (mode 0700) on first use.
    func pairingStore() throws(HubError) -> ControllerPairingStore {
        if let store = accessories.pairingStore { return store }
        let folder = configuration.controllerFolder
        do {
            try PrivateFolder.prepare(atPath: folder)
        } catch {
            throw .accessory(.store(.systemCallFailed(operation: "mkdir", code: EACCES)))
        }
        let store = ControllerPairingStore(folder: folder)
        accessories.pairingStore = store
        return store
    }

    private func makeClient(_ record: PairedAccessoryRecord, identity: ControllerIdentity) -> PairedAccessory {
        PairedAccessory(
            record: record,
            identity: identity,
            configuration: configuration.accessoryLinks,
            eventLoopGroup: eventLoop,
            logger: logger
        )
    }

    /// Keeps a link: follows its events and reachability and indexes its characteristics.
    private func install(_ paired: PairedAccessory, key: String, homeID: UUID, isReachable: Bool?) {
        guard !accessories.isClosing else {
            Task { await paired.close() }
            return
        }
        var link = AccessoryLink(paired: paired, homeID: homeID)
        link.isReachable = isReachable
        link.index = currentGraph.characteristicIndex(ofDevice: key, inHome: homeID)
        let events = paired.events
        let reachability = paired.reachability
        link.tasks.append(
            Task(executorPreference: taskExecutor) { [weak self] in
                for await event in events { await self?.accessoryEvent(event, key: key) }
            }
        )
        link.tasks.append(
            Task(executorPreference: taskExecutor) { [weak self] in
                for await reachable in reachability { await self?.reachabilityChanged(reachable, key: key) }
            }
        )
        accessories.links[key] = link
    }

    /// Connects a link made at start, retrying with the link's backoff until it succeeds or the link closes.
    private func connectTask(_ paired: PairedAccessory, key: String) -> Task<Void, Never> {
        let backoff = configuration.accessoryLinks.backoff
        return Task(executorPreference: taskExecutor) { [weak self] in
            var attempt = 0
            while !Task.isCancelled {
                do throws(HAPControllerError) {
                    try await paired.connect()
                    break
                } catch {
                    if case .closed = error { return }
                    if case .verificationFailed = error {
                        self?.logger.warning("an accessory no longer knows the hub", metadata: ["device": "\(key)"])
                    }
                    do { try await backoff.sleep(backoff.delay(forAttempt: attempt)) } catch { return }
                    attempt += 1
                }
            }
            await self?.subscribeNotifying(key: key, onlyEnabled: true)
        }
    }

    /// Subscribes to the notifying characteristics of a link: those the graph has on (`onlyEnabled`), else all.
    func subscribeNotifying(key: String, onlyEnabled: Bool, accessoryIDs: Set<UUID>? = nil) async {
        guard let link = accessories.links[key] else { return }
        var wanted: [(CharacteristicID, UUID)] = []
        for accessory in currentGraph.accessories(ofDevice: key, inHome: link.homeID)
        where accessoryIDs?.contains(accessory.id) ?? true {
            for characteristic in accessory.characteristics where characteristic.permissions.contains(.notify) {
                guard !onlyEnabled || characteristic.isNotificationEnabled else { continue }
                let id = CharacteristicID(
                    accessoryID: accessory.accessoryInstanceID,
                    instanceID: characteristic.instanceID
                )
                wanted.append((id, characteristic.id))
            }
        }
        guard !wanted.isEmpty else { return }
        let statuses: [CharacteristicID: HAPStatus]
        do {
            statuses = try await link.paired.subscribe(wanted.map(\.0))
        } catch {
            logger.debug("subscribing failed", metadata: ["device": "\(key)", "error": "\(error)"])
            return
        }
        guard !onlyEnabled else { return }
        let operations = wanted.compactMap { id, characteristic -> HomeOperation? in
            guard statuses[id]?.isSuccess == true else { return nil }
            return .setNotifications(home: link.homeID, characteristic: characteristic, isEnabled: true)
        }
        do { try applyReports(operations) } catch { logger.error("saving notification settings failed") }
    }

    private func forgetOrphan(
        _ record: PairedAccessoryRecord,
        identity: ControllerIdentity,
        store: ControllerPairingStore
    ) {
        let paired = makeClient(record, identity: identity)
        let logger = logger
        Task {
            do {
                try await paired.unpair()
                try await store.remove(deviceID: record.deviceID)
            } catch {
                await paired.close()
                logger.warning("could not remove the pairing of an accessory in no home")
            }
        }
    }
}
