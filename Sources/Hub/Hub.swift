import Automation
import DNSSD
import Foundation
import HAP
import HAPController
import HomeGraph
import HomeStore
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The keeper of the common home: the only writer of the home graph, which checks every caller's rights.
///
/// Every API call and every automation goes through `perform(_:as:)` or one of the accessory calls; the hub
/// checks the caller's role in the home, applies the operations to the graph it owns, appends them to the store's
/// log (written: a kill of the process loses nothing) and hands the resulting change events, in sequence order per
/// home, to every subscriber allowed to see them. A caller that acknowledges a change to a person waits for
/// `durable()` first (the API does), so a power cut loses nothing acknowledged either.
public actor Hub: EventLoopBoundActor {
    /// Where the hub keeps its state and what it talks to.
    public struct Configuration: Sendable {
        /// The state folder: the home store, its device key, the controller's pairings.
        public var stateFolder: String
        /// How many recent changes per home are kept for clients that resume.
        public var historyLimit: Int
        /// The logger; never given secrets.
        public var logger: Logger
        /// The IPv4 addresses whose interfaces the hub browses for accessories on; empty: no browsing.
        public var interfaces: [IPv4Address]
        /// The event loops the hub picks its own from (``Hub/eventLoop``: its actor, accessory connections, browser).
        public var eventLoopGroup: any EventLoopGroup
        /// Timeouts and reconnect backoff of each accessory link.
        public var accessoryLinks: PairedAccessory.Configuration
        /// Timeouts of pair-setup.
        public var pairingTimeouts: ConnectionTimeouts
        /// How long value reports from accessories are gathered into one transaction (group commit).
        public var reportWindow: Duration
        /// Where automation time comes from (timers, sun times, durations, the decisions' times).
        public var clock: any AutomationClock
        /// How soon a change nobody waits for (see ``Hub/durable()``) is synced to disk.
        public var storeSyncDelay: Duration

        /// Makes a configuration for the state folder `stateFolder`.
        public init(
            stateFolder: String,
            historyLimit: Int = 1000,
            logger: Logger = Logger(label: "hearth.hub"),
            interfaces: [IPv4Address] = [],
            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
            accessoryLinks: PairedAccessory.Configuration = PairedAccessory.Configuration(),
            pairingTimeouts: ConnectionTimeouts = ConnectionTimeouts(connect: .seconds(10), request: .seconds(30)),
            reportWindow: Duration = .milliseconds(3),
            clock: any AutomationClock = SystemClock(),
            storeSyncDelay: Duration = .seconds(1)
        ) {
            self.stateFolder = stateFolder
            self.historyLimit = historyLimit
            self.logger = logger
            self.interfaces = interfaces
            self.eventLoopGroup = eventLoopGroup
            self.accessoryLinks = accessoryLinks
            self.pairingTimeouts = pairingTimeouts
            self.reportWindow = reportWindow
            self.clock = clock
            self.storeSyncDelay = storeSyncDelay
        }

        /// The folder of the controller's identity and pairings: `<stateFolder>/controller`.
        public var controllerFolder: String {
            (stateFolder as NSString).appendingPathComponent("controller")
        }
    }

    /// The configuration the hub was started with.
    public nonisolated let configuration: Configuration
    /// The event loop the hub runs on (its actor's executor), with its accessory connections and its timers: an
    /// accessory's event reaches the hub, and the writes an automation makes leave, without changing threads.
    public nonisolated let eventLoop: any EventLoop
    /// An executor on ``eventLoop`` for the hub's tasks that are not isolated to it (those reading its links'
    /// events).
    nonisolated let taskExecutor: EventLoopTaskExecutor

    /// Runs the actor on ``eventLoop``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }
    /// The home graph as of the last acknowledged operation; read without waiting for the hub (a write in
    /// progress, its disk sync included, does not hold readers up).
    public nonisolated var graph: HomeGraph { acknowledged.withLock { $0 } }

    /// The durable log of the graph's operations.
    let store: HomeStore
    let logger: Logger
    /// The home graph; the hub is its only writer (`commit(_:_:)`), and it holds only acknowledged operations
    /// between the hub's turns.
    private(set) var currentGraph: HomeGraph
    /// `currentGraph` as readers see it, set after each commit.
    private let acknowledged: Mutex<HomeGraph>
    private var subscribers: [HubSubscription: Subscriber] = [:]
    /// Per home, the last sequence handed to subscribers and events that arrived ahead of a missing one.
    private var published: [UUID: UInt64] = [:]
    private var waiting: [UUID: [UInt64: HomeEvent]] = [:]
    var isStopped = false
    /// The accessory links, the browser and the reports waiting for their group commit.
    var accessories = AccessoryLinks()
    /// The automation engine and its timer.
    var automation = AutomationRuntime()
    /// The plain-language engine of each home, built once per version of its structure.
    var commandEngines = CommandEngines()

    /// Opens the home store in the state folder (creating it on first start), reads the home graph and adds the
    /// built-in scenes that homes made before homes had them lack.
    public init(configuration: Configuration) async throws(HubError) {
        self.configuration = configuration
        let loop = configuration.eventLoopGroup.next()
        eventLoop = loop
        taskExecutor = EventLoopTaskExecutor(loop)
        logger = configuration.logger
        let store: HomeStore
        do {
            store = try HomeStore(
                folder: configuration.stateFolder,
                historyLimit: configuration.historyLimit,
                syncDelay: configuration.storeSyncDelay
            )
        } catch {
            throw HubError(error)
        }
        self.store = store
        if store.openedAfterUncleanStop {
            logger.notice("the hub was not stopped cleanly last time; change numbers moved ahead, so clients reload")
        }
        let graph = store.graph
        currentGraph = graph
        acknowledged = Mutex(graph)
        published = graph.lastSequences
        do {
            try addMissingBuiltInActionSets()
        } catch {
            try? await store.close()
            throw error
        }
    }

    // MARK: Operations

    /// Applies `operation` for `caller` after checking their rights, and returns its change events.
    @discardableResult
    public func perform(_ operation: HomeOperation, as caller: HubCaller) async throws(HubError) -> [HomeEvent] {
        try await perform([operation], as: caller)
    }

    /// Applies `operations` for `caller` as one batch, whole or not at all, after checking their rights, and
    /// returns their change events in order.
    ///
    /// A request that changes several fields (a name and a room, say) is one batch: when one operation is refused
    /// nothing of the batch is applied or written.
    @discardableResult
    public func perform(_ operations: [HomeOperation], as caller: HubCaller) async throws(HubError) -> [HomeEvent] {
        for operation in operations { try authorize(operation, as: caller) }
        return try commitWhole(operations, by: ChangeAuthor(caller))
    }

    /// Adds a home whose owner is `caller` (a person), with its four built-in scenes, and returns it; the first home
    /// becomes primary.
    public func addHome(
        name: String,
        timeZoneIdentifier: String = "UTC",
        ownerName: String,
        as caller: HubCaller
    ) async throws(HubError) -> Home {
        let homeID = UUID()
        let add = HomeOperation.addHome(
            id: homeID,
            name: name,
            roomForEntireHomeID: UUID(),
            timeZoneIdentifier: timeZoneIdentifier,
            builtInActionSetIDs: .random()
        )
        var operations = [add]
        if case .user(let userID) = caller {
            operations.append(.addUser(home: homeID, id: userID, name: ownerName, role: .owner))
        }
        try commitWhole(operations, by: ChangeAuthor(caller))
        guard let home = currentGraph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        return home
    }

    /// Waits until every change made so far is synced to disk, so that a power cut loses none of them.
    ///
    /// A change is written (safe from a kill of the process) before its events go out; this is what a caller
    /// waits for before it answers that the change was made. Waiters share one sync.
    public nonisolated func durable() async throws(HubError) {
        do { try await store.synced(through: store.lastOperationSequence) } catch { throw HubError(error) }
    }

    /// How many written operations are not synced to disk yet (a power cut now would lose them; a kill would not).
    public nonisolated var unsyncedOperations: Int64 { store.unsyncedOperations }

    /// The changes of a home after `sequence` for a client that resumes, if `caller` belongs to the home.
    public func changes(
        after sequence: UInt64,
        inHome homeID: UUID,
        as caller: HubCaller
    ) throws(HubError)
        -> ChangeHistory
    {
        guard currentGraph.role(of: caller, inHome: homeID) != nil else { throw .homeNotFound(homeID) }
        do {
            return try currentGraph.changes(after: sequence, inHome: homeID)
        } catch {
            throw .rejected(error)
        }
    }

    /// The newest `count` kept changes of a home, oldest first (across any numbers skipped after an unclean stop),
    /// if `caller` belongs to the home.
    public func recentChanges(
        last count: Int,
        inHome homeID: UUID,
        as caller: HubCaller
    ) throws(HubError)
        -> [HomeEvent]
    {
        guard currentGraph.role(of: caller, inHome: homeID) != nil else { throw .homeNotFound(homeID) }
        do {
            return try currentGraph.recentChanges(last: count, inHome: homeID)
        } catch {
            throw .rejected(error)
        }
    }

    /// Throws unless `caller` may carry out `operation`.
    func authorize(_ operation: HomeOperation, as caller: HubCaller) throws(HubError) {
        guard case .user(let callerID) = caller else { return }
        let level = AccessLevel(for: operation)
        guard let homeID = operation.homeID else {
            // Adding a home goes through addHome(name:…), which makes the caller its owner.
            throw .notPermitted("a home is added with addHome, which makes you its owner")
        }
        guard let role = currentGraph.role(of: caller, inHome: homeID) else { throw .homeNotFound(homeID) }
        try Self.check(level, role: role)
        if case .setPresence(_, let userID, _) = operation, userID != callerID {
            throw .notPermitted("presence is reported only for oneself")
        }
        try checkOwnerKept(operation, callerRole: role)
    }

    /// Throws when `operation` would change or remove the home's owner: only the owner may touch the owner, and a
    /// home never loses its owner (there is no handing over of ownership, so the owner cannot step down or leave).
    func checkOwnerKept(_ operation: HomeOperation, callerRole: UserRole) throws(HubError) {
        let target: UUID
        let newRole: UserRole?
        switch operation {
        case .removeUser(_, let user): (target, newRole) = (user, nil)
        case .setRole(_, let user, let role): (target, newRole) = (user, role)
        default: return
        }
        guard let homeID = operation.homeID,
            currentGraph.role(of: .user(target), inHome: homeID) == .owner, newRole != .owner
        else { return }
        guard callerRole == .owner else { throw .notPermitted("only the home's owner may change or remove the owner") }
        throw .conflict(
            "a home keeps its owner: ownership cannot be handed over, so the owner cannot leave the home or take "
                + "another role; remove the home instead"
        )
    }

    /// Throws unless `role` has `level`, with a message that says what is needed.
    static func check(_ level: AccessLevel, role: UserRole) throws(HubError) {
        guard !level.isGranted(to: role) else { return }
        switch level {
        case .control: return
        case .configure: throw .notPermitted("shared users control the home but do not change its configuration")
        case .owner: throw .notPermitted("only the home's owner may do this")
        case .hub: throw .notPermitted("this change comes from accessories; use the accessory calls")
        }
    }

    /// Throws unless `caller` has at least `level` in `homeID`.
    func authorize(_ level: AccessLevel, inHome homeID: UUID, as caller: HubCaller) throws(HubError) {
        guard case .user = caller else { return }
        guard let role = currentGraph.role(of: caller, inHome: homeID) else { throw .homeNotFound(homeID) }
        try Self.check(level, role: role)
    }

    /// How a batch of operations meets a refusal.
    enum CommitMode {
        /// A refused operation throws, and nothing of the batch is applied or written (a request).
        case allOrNothing
        /// A refused operation is reported in its place and the others still apply (accessory reports).
        case skipRefused
    }

    /// The one way the home graph changes: applies `operations` in order, writes those that changed it to the
    /// store in one transaction (written, synced later: see `durable()`), then publishes their events; each
    /// operation's result in order.
    ///
    /// Nothing suspends between applying and writing, so no other call of the hub sees a change that is not
    /// written. When the write fails the graph is what the store read back from disk, and the error is thrown.
    @discardableResult
    func commit(
        _ operations: [HomeOperation],
        _ mode: CommitMode,
        by author: ChangeAuthor? = nil
    ) throws(HubError) -> [Result<[HomeEvent], HomeGraphError>] {
        guard !isStopped else { throw .stopped }
        let before = currentGraph
        // Whole seconds: the API writes times in ISO 8601 without fractions, so an event reads back as it was.
        let now = Date(timeIntervalSince1970: configuration.clock.now().timeIntervalSince1970.rounded(.down))
        var results: [Result<[HomeEvent], HomeGraphError>] = []
        results.reserveCapacity(operations.count)
        var written: [LoggedOperation] = []
        for operation in operations {
            do throws(HomeGraphError) {
                // HomeGraph.apply changes nothing when it throws.
                let by = author ?? ChangeAuthor(reporting: operation)
                let events = try currentGraph.apply(operation, by: by, at: now)
                if !events.isEmpty { written.append(LoggedOperation(operation, by: by, at: now)) }
                results.append(.success(events))
            } catch {
                guard mode == .skipRefused else {
                    currentGraph = before
                    throw .rejected(error)
                }
                results.append(.failure(error))
            }
        }
        guard !written.isEmpty else { return results }
        let lastWritten = store.lastOperationSequence
        do {
            try store.append(written, resulting: currentGraph)
        } catch {
            // The store read the disk back. A commit that reported a failure may still have landed (the batch is
            // one transaction: all of it or none); then it is acknowledged after all and its events go out, or the
            // home's event sequence would have a hole no later event fills.
            guard store.lastOperationSequence == lastWritten + Int64(written.count) else {
                logger.error("a change could not be saved", metadata: ["code": "\(error.code)"])
                currentGraph = store.graph
                acknowledged.withLock { $0 = currentGraph }
                commandEngines.forgetAll()
                throw HubError(error)
            }
            logger.warning("a save reported a failure but is on disk", metadata: ["code": "\(error.code)"])
        }
        acknowledged.withLock { $0 = currentGraph }
        var all: [HomeEvent] = []
        for case .success(let events) in results {
            publish(events, before: before)
            all += events
        }
        commandEngines.follow(all)
        automationFollow(all, before: before)
        return results
    }

    /// Commits `operations` whole or not at all, made by `author` (by default as ``ChangeAuthor/init(reporting:)``
    /// says), and returns their events in order.
    @discardableResult
    func commitWhole(_ operations: [HomeOperation], by author: ChangeAuthor? = nil) throws(HubError) -> [HomeEvent] {
        // Under `.allOrNothing` a refusal throws, so every result is a success.
        try commit(operations, .allOrNothing, by: author).flatMap { (try? $0.get()) ?? [] }
    }

    /// Applies value reports from accessories in one transaction (group commit); refused ones are skipped.
    ///
    /// Returns each operation's result in order (empty when stopped or given nothing).
    @discardableResult
    func applyReports(
        _ operations: [HomeOperation],
        by author: ChangeAuthor? = nil
    ) throws(HubError) -> [Result<[HomeEvent], HomeGraphError>] {
        guard !isStopped, !operations.isEmpty else { return [] }
        return try commit(operations, .skipRefused, by: author)
    }

    // MARK: Change events

    /// A stream of the change events `caller` may see, from now on, in sequence order per home.
    ///
    /// The stream ends when the hub stops or the subscriber cancels it.
    public func subscribe(as caller: HubCaller, bufferingNewest limit: Int = 10_000) -> AsyncStream<HomeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HomeEvent.self,
            bufferingPolicy: .bufferingNewest(limit)
        )
        let id = subscribe(
            as: caller,
            onEvent: { event in continuation.yield(event) },
            onEnd: { continuation.finish() }
        )
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    /// Calls `onEvent` with each change event `caller` may see, from now on, in sequence order per home, and
    /// `onEnd` once when the hub stops (at once when it has stopped already); ends with `unsubscribe(_:)`.
    ///
    /// Both run on the hub's actor, so they must only hand the event on (yield it to a stream, say): there is no
    /// task per subscriber between the hub and the subscriber.
    public func subscribe(
        as caller: HubCaller,
        onEvent: @escaping @Sendable (HomeEvent) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) -> HubSubscription {
        let id = HubSubscription(id: UUID())
        guard !isStopped else {
            onEnd()
            return id
        }
        subscribers[id] = Subscriber(caller: caller, deliver: onEvent, end: onEnd)
        return id
    }

    /// Ends a subscription made with `subscribe(as:onEvent:onEnd:)`; its `onEnd` is not called.
    public func unsubscribe(_ id: HubSubscription) {
        subscribers[id] = nil
    }

    /// Hands events to subscribers in sequence order per home, holding back any that overtook an earlier one.
    ///
    /// `before` is the graph before the events: members of a home as it was (a removed user, a removed home)
    /// hear of the change that ended their membership.
    private func publish(_ events: [HomeEvent], before: HomeGraph) {
        for event in events {
            let home = event.homeID
            // A home new since the graph was read starts after the graph's floor (see `HomeGraph.sequenceFloor`).
            let last = published[home] ?? before.lastSequence(ofHome: home)
            guard event.sequence == last + 1 else {
                if event.sequence > last { waiting[home, default: [:]][event.sequence] = event }
                continue
            }
            deliver(event, before: before)
            var next = event.sequence
            while let queued = waiting[home]?.removeValue(forKey: next + 1) {
                deliver(queued, before: before)
                next += 1
            }
            published[home] = next
            if waiting[home]?.isEmpty == true { waiting[home] = nil }
        }
    }

    /// Hands `event` to the subscribers who are users of its home in the graph before or after it; the home's
    /// users are looked up once per event, not once per subscriber.
    private func deliver(_ event: HomeEvent, before: HomeGraph) {
        var members = Set<UUID>()
        for graph in [currentGraph, before] {
            for user in graph.home(withID: event.homeID)?.users ?? [] { members.insert(user.id) }
        }
        for subscriber in subscribers.values {
            switch subscriber.caller {
            case .hub: subscriber.deliver(event)
            case .user(let id) where members.contains(id): subscriber.deliver(event)
            case .user: continue
            }
        }
    }

    /// Closes the accessory links, the browser and the store and ends every subscription; later requests throw
    /// `.stopped`.
    public func stop() async {
        guard !isStopped else { return }
        stopAutomation()
        await stopAccessories()
        isStopped = true
        for subscriber in subscribers.values { subscriber.end() }
        subscribers = [:]
        do { try await store.close() } catch { logger.error("closing the home store failed: \(error.code)") }
    }
}

/// The handle of a subscription to the hub's change events, for `Hub.unsubscribe(_:)`.
public struct HubSubscription: Hashable, Sendable {
    let id: UUID
}

/// One subscription to change events.
struct Subscriber {
    let caller: HubCaller
    let deliver: @Sendable (HomeEvent) -> Void
    let end: @Sendable () -> Void
}
