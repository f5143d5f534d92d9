import CMallocTrim
import Crypto
import HAP
import HAPTypes
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why the server could not start.
public enum AccessoryServerError: Error, Equatable, Sendable {
    /// There is no saved state and no setup code to make the SRP verifier from.
    case setupCodeRequired
    /// The saved state holds a key, device ID, setup ID or verifier that cannot be used.
    case invalidStoredState
    /// ``AccessoryServer/start()`` was called twice.
    case alreadyStarted
}

/// A HAP accessory server on SwiftNIO: sessions, pairing, HTTP routes and events for one backend.
///
/// State shared by all connections (pairings, the pair-setup slot, subscriptions, the session table) lives in this
/// actor, and the actor runs on one event loop that also carries every connection: a request is handled where its
/// bytes arrived, with no hop to another thread (a backend pinned to the same loop adds none either).
public actor AccessoryServer {
    /// The configuration the server was made with.
    public nonisolated let configuration: Configuration
    /// The event loop the server's state and all its connections live on.
    public nonisolated let eventLoop: any EventLoop
    /// Runs the actor on ``eventLoop``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }
    /// Every advertisement change: the first after ``start()``, then on pairing changes and `c#` bumps.
    public nonisolated let advertisements: AsyncStream<Advertisement>

    let backend: any AccessoryBackend
    let store: any AccessoryStateStore
    /// Faults switched on for testing controllers; `nil` in normal use.
    public nonisolated let faults: TransportFaults?
    let logger: Logger
    let uptime: @Sendable () -> Duration
    private let advertisementContinuation: AsyncStream<Advertisement>.Continuation

    var state = AccessoryState(
        deviceID: "",
        signingKey: [],
        pairings: PairingTable(),
        failedAttempts: 0,
        configurationNumber: 1,
        setupID: "",
        salt: [],
        verifier: []
    )
    var identity = AccessoryIdentity(deviceID: "", signingKey: Curve25519.Signing.PrivateKey())
    /// The pair-setup verifier while unpaired; nil once paired (see `pairSetupVerifier()`).
    var verifier: SRPVerifier?
    var database = AccessoryDatabase(accessories: [])
    var connections: [ObjectIdentifier: ConnectionRecord] = [:]
    private var closedByServer: Set<ObjectIdentifier> = []
    var pairSetupOwner: (connection: ObjectIdentifier, since: Duration)?
    /// ``unverifiedTimeout`` in nanoseconds, read by each connection when it arms its timer.
    private nonisolated let unverifiedTimeoutNanoseconds: Synchronization.Atomic<Int64>

    /// How long a connection that has not completed pair-verify may go without a whole request; starts as the
    /// configuration's and applies to each timer armed after ``setUnverifiedTimeout(_:)``.
    public nonisolated var unverifiedTimeout: Duration {
        .nanoseconds(unverifiedTimeoutNanoseconds.load(ordering: .relaxed))
    }

    /// Changes ``unverifiedTimeout`` while serving (a tester tightens it after pairing, for example).
    public nonisolated func setUnverifiedTimeout(_ timeout: Duration) {
        unverifiedTimeoutNanoseconds.store(TimeAmount(timeout).nanoseconds, ordering: .relaxed)
    }

    var serverChannel: (any Channel)?
    private var backendTask: Task<Void, Never>?

    /// The advertisement as it is now; `nil` before ``start()``.
    public private(set) var advertisement: Advertisement?
    /// The port the server listens on; `nil` before ``start()``.
    public private(set) var port: Int?

    /// One connection as the server sees it.
    struct ConnectionRecord {
        var handle: ConnectionHandle
        var controllerID: [UInt8]?
        var lastRequest: Duration
        var subscriptions: Set<CharacteristicID> = []
    }

    /// Makes a server; nothing happens until ``start()``.
    ///
    /// - Parameters:
    ///   - uptime: a monotonic clock for timed-write deadlines and idle times; tests pass one they control.
    public init(
        configuration: Configuration,
        backend: any AccessoryBackend,
        store: any AccessoryStateStore,
        logger: Logger = Logger(label: "hearth.accessory-server"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        uptime: (@Sendable () -> Duration)? = nil,
        faults: TransportFaults? = nil
    ) {
        self.configuration = configuration
        self.faults = faults
        self.unverifiedTimeoutNanoseconds = Synchronization.Atomic(
            TimeAmount(configuration.unverifiedTimeout).nanoseconds
        )
        self.backend = backend
        self.store = store
        self.logger = logger
        eventLoop = eventLoopGroup.next()
        let origin = ContinuousClock.now
        self.uptime = uptime ?? { ContinuousClock.now - origin }
        (advertisements, advertisementContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(32))
    }

    /// Loads or creates the state, listens, follows the backend's events; returns the port.
    @discardableResult
    public func start() async throws -> Int {
        guard serverChannel == nil else { throw AccessoryServerError.alreadyStarted }
        try await loadState()
        database = await backend.database()
        try await listen(port: configuration.port)
        let events = await backend.events()
        backendTask = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        publishAdvertisement()
        // Loading the state and the database allocated and freed far more than is kept; give those pages back.
        if configuration.releasesFreeMemory { Self.releaseFreeMemory() }
        logger.info(
            "Accessory server listening",
            metadata: ["port": "\(port ?? 0)", "paired": "\(state.pairings.isPaired)"]
        )
        return port ?? 0
    }

    /// Binds the listening socket on `port` (0 picks one) and records the port bound.
    func listen(port requested: Int) async throws {
        let server = self
        let window = configuration.eventCoalescingWindow
        let logger = self.logger
        let faults = self.faults
        let channel = try await ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    faults?.noteConnectionAccepted()
                    let handler = HAPConnectionHandler(
                        server: server,
                        eventCoalescingWindow: window,
                        logger: logger
                    )
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .bind(host: configuration.host, port: requested)
            .get()
        serverChannel = channel
        port = channel.localAddress?.port ?? requested
    }

    /// Stops listening, closes every connection and ends ``advertisements``.
    public func stop() async {
        backendTask?.cancel()
        backendTask = nil
        for id in Array(connections.keys) { close(id) }
        if let serverChannel {
            try? await serverChannel.close()
        }
        serverChannel = nil
        advertisementContinuation.finish()
    }

    /// Gives heap pages that hold only freed memory back to the system (glibc's `malloc_trim`).
    ///
    /// For a program to call after its own start-up work; with ``Configuration/releasesFreeMemory`` the server
    /// calls it after starting and after `/accessories` answers.
    public nonisolated static func releaseFreeMemory() {
        _ = hearth_release_free_memory()
    }

    /// How many connections are open.
    public var sessionCount: Int { connections.count }

    /// The paired controllers, as saved.
    public var pairings: PairingTable { state.pairings }

    /// The setup ID for the setup payload and hash; `nil` before ``start()`` loads the state.
    public var setupID: SetupID? { try? SetupID(state.setupID) }

    // MARK: - Connections

    /// Adds a new connection; when every slot is taken, closes the connection idle longest that has not completed
    /// pair-verify and runs no pair-setup, else the pair-setup's, else the verified session idle longest.
    func register(_ handle: ConnectionHandle) {
        if connections.count >= configuration.maximumSessions {
            // hap-protocol.md §7.9: close the session idle longest, only when its slot is needed (ADK). Strangers go
            // first (issue 20): a flood of unauthenticated connections must not drop a controller's event session.
            // Then the connection of a pair-setup under way (a person may be typing the code), then verified ones.
            let pairing = pairSetupOwner?.connection
            func rank(_ id: ObjectIdentifier, _ record: ConnectionRecord) -> Int {
                record.controllerID != nil ? 2 : id == pairing ? 1 : 0
            }
            let victim = connections.min { first, second in
                let (firstRank, secondRank) = (rank(first.key, first.value), rank(second.key, second.value))
                if firstRank != secondRank { return firstRank < secondRank }
                return first.value.lastRequest < second.value.lastRequest
            }
            if let victim {
                if victim.value.controllerID == nil {
                    logger.debug(
                        "Closing the unverified connection idle longest to make room for a new one",
                        metadata: ["peer": "\(victim.value.handle.peer)", "newPeer": "\(handle.peer)"]
                    )
                } else {
                    logger.info("Closing the session idle longest to make room for a new one")
                }
                close(victim.key)
            }
        }
        connections[handle.id] = ConnectionRecord(handle: handle, lastRequest: uptime())
    }

    /// Forgets a connection that closed; `handle` is passed (not its id) so it stays alive, and its id unique,
    /// until this runs.
    func unregister(_ handle: ConnectionHandle) {
        let id = handle.id
        if connections[id] != nil {
            drop(id)
        } else {
            closedByServer.remove(id)
        }
    }

    /// Closes a connection and frees its slot at once; its unregister comes later.
    func close(_ id: ObjectIdentifier) {
        guard let record = connections[id] else { return }
        record.handle.close()
        closedByServer.insert(id)
        drop(id)
    }

    private func drop(_ id: ObjectIdentifier) {
        connections[id] = nil
        if pairSetupOwner?.connection == id { pairSetupOwner = nil }
    }

    /// Carries out what a response asked for once it has been written.
    func carryOut(_ followups: [RouteOutcome.Followup]) {
        for followup in followups {
            switch followup {
            case .publishAdvertisement:
                publishAdvertisement()
            case .closeSessions(let identifiers):
                for (id, record) in connections {
                    guard let controller = record.controllerID, identifiers.contains(controller) else { continue }
                    close(id)
                }
            case .releaseFreeMemory:
                if configuration.releasesFreeMemory { Self.releaseFreeMemory() }
            }
        }
    }

    // MARK: - Events

    /// Sends changes to every connection subscribed to them, except the one whose write caused them.
    func fanOut(_ changes: [CharacteristicChange], except excluded: ObjectIdentifier?) {
        guard !changes.isEmpty else { return }
        for (id, record) in connections where id != excluded && !record.subscriptions.isEmpty {
            let wanted = changes.filter { record.subscriptions.contains($0.id) }
            guard !wanted.isEmpty else { continue }
            let immediately = wanted.contains { database.characteristic(at: $0.id)?.sendsEventsImmediately == true }
            record.handle.deliver(wanted, immediately: immediately)
        }
    }

    private func handle(_ event: BackendEvent) async {
        switch event {
        case .valuesChanged(let changes):
            fanOut(changes, except: nil)
        case .databaseChanged:
            database = await backend.database()
            // hap-protocol.md §12.3: c# runs 1–65535 and wraps to 1.
            state.configurationNumber = state.configurationNumber >= 65535 ? 1 : state.configurationNumber + 1
            await persist()
            publishAdvertisement()
        }
    }

    // MARK: - Advertisement

    func publishAdvertisement() {
        guard let port else { return }
        var setupHash = ""
        if let setupID = try? SetupID(state.setupID), let deviceID = try? DeviceID(state.deviceID) {
            setupHash = SetupHash(setupID: setupID, deviceID: deviceID).base64
        }
        let current = Advertisement(
            name: configuration.name,
            port: port,
            deviceID: state.deviceID,
            configurationNumber: state.configurationNumber,
            statusFlags: state.pairings.isPaired ? 0 : Advertisement.unpairedStatusFlag,
            category: configuration.category,
            model: configuration.model,
            setupHash: setupHash
        )
        advertisement = current
        advertisementContinuation.yield(current)
    }

    /// Saves the state; a failure is logged and reported.
    @discardableResult
    func persist() async -> Bool {
        do {
            try await store.save(state)
            return true
        } catch {
            logger.error("Could not save the accessory state", metadata: ["error": "\(error)"])
            return false
        }
    }
}

extension HAPCharacteristic {
    /// hap-protocol.md §7.8: ProgrammableSwitchEvent (0x73) and ButtonEvent (0x126) skip coalescing.
    var sendsEventsImmediately: Bool {
        type == HAPUUID(apple: 0x73) || type == HAPUUID(apple: 0x126)
    }
}
