import Foundation
import HAP
import HAPTypes
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// One paired accessory: a long-lived verified session, batched reads and writes, events and reachability.
///
/// Requests share one connection with one request in flight. When an established session is lost, the client
/// reconnects with ``ReconnectBackoff``, verifies again, subscribes again to everything subscribed before, and
/// only then reports itself reachable. ``events`` and ``reachability`` have one consumer each and finish on
/// ``close()``.
///
/// The actor runs on one event loop of the group it is given, the loop of its connection. Reads and writes run where
/// their caller runs and cross to that loop at most once; a caller that runs on ``taskExecutor`` (with
/// `withTaskExecutorPreference`) makes no hop at all: with the session open and no request waiting, its request is
/// written before it suspends, and the answer resumes it.
public actor PairedAccessory: EventLoopBoundActor {
    /// Timeouts, backoff and batching.
    public struct Configuration: Sendable {
        /// Connect and request timeouts.
        public var timeouts: ConnectionTimeouts
        /// The waits between reconnect attempts.
        public var backoff: ReconnectBackoff
        /// The most characteristics in one read (Home Assistant's cap, hap-protocol.md §7.5).
        public var maximumReadBatch: Int

        /// Makes a configuration; the defaults suit real accessories.
        public init(
            timeouts: ConnectionTimeouts = ConnectionTimeouts(),
            backoff: ReconnectBackoff = ReconnectBackoff(),
            maximumReadBatch: Int = 49
        ) {
            self.timeouts = timeouts
            self.backoff = backoff
            self.maximumReadBatch = max(1, maximumReadBatch)
        }
    }

    /// The accessory as stored at pairing.
    public nonisolated let record: PairedAccessoryRecord
    /// Value changes, unusable events and database changes, in the order received.
    public nonisolated let events: AsyncStream<AccessoryEvent>
    /// `true` when a verified session is up (after re-subscribing), `false` when it is lost or cannot be made.
    public nonisolated let reachability: AsyncStream<Bool>
    /// Characteristics subscribed to, re-subscribed after every reconnect.
    public private(set) var subscriptions: Set<CharacteristicID> = []
    /// The configuration number of the cached database, as last noted.
    public private(set) var configurationNumber: Int?
    /// The reachability last reported, `nil` before the first connection attempt ends.
    public internal(set) var isReachable: Bool?

    /// The event loop this actor and its connection run on.
    public nonisolated let eventLoop: any EventLoop
    /// An executor running on ``eventLoop``: callers that prefer it talk to the accessory without changing threads.
    public nonisolated let taskExecutor: EventLoopTaskExecutor

    let identity: ControllerIdentity
    let configuration: Configuration
    var connection: AccessoryConnection
    private var host: String
    private var port: Int
    let logger: Logger
    let eventContinuation: AsyncStream<AccessoryEvent>.Continuation
    let reachabilityContinuation: AsyncStream<Bool>.Continuation
    var database: AccessoryDatabase? {
        didSet {
            let formats = database.map(Self.formats(of:)) ?? [:]
            formatIndex.withLock { $0 = formats }
        }
    }
    /// The format of every characteristic of ``database``, to type values without searching the database; read
    /// from any thread, so a read need not hop onto this actor to type its answer.
    private nonisolated let formatIndex = Mutex<[CharacteristicID: Format]>([:])
    /// The format index now.
    nonisolated var formats: [CharacteristicID: Format] { formatIndex.withLock { $0 } }
    var isListening = false
    /// Counts sessions started and lost, so a re-subscription finishing late does not report a lost one reachable.
    var sessionNumber = 0
    var reconnect: Task<Void, Never>?
    var isClosed = false

    /// Makes a client for a paired accessory; nothing is sent until the first call.
    public init(
        record: PairedAccessoryRecord,
        identity: ControllerIdentity,
        configuration: Configuration = Configuration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "hearth.controller")
    ) {
        self.record = record
        self.identity = identity
        self.configuration = configuration
        self.logger = logger
        configurationNumber = record.configurationNumber
        let loop = eventLoopGroup.next()
        eventLoop = loop
        taskExecutor = EventLoopTaskExecutor(loop)
        host = record.host
        port = record.port
        connection = Self.makeConnection(
            host: record.host,
            port: record.port,
            identity: identity,
            record: record,
            configuration: configuration,
            eventLoop: loop,
            logger: logger
        )
        (events, eventContinuation) = AsyncStream.makeStream(of: AccessoryEvent.self)
        (reachability, reachabilityContinuation) = AsyncStream.makeStream(of: Bool.self)
    }

    /// Runs the actor on its connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    deinit {
        // Released without close(): stop the tasks; the connection closes its socket as it is released.
        reconnect?.cancel()
        eventContinuation.finish()
        reachabilityContinuation.finish()
    }

    /// Connects and verifies now rather than on the first request.
    public func connect() async throws(HAPControllerError) {
        listen()
        do {
            try await connection.connect()
        } catch {
            setReachable(false)
            throw error
        }
        // With subscriptions to renew, the session's start reports reachability once they are renewed.
        if subscriptions.isEmpty { setReachable(true) }
    }

    /// Closes the session for good, stops reconnecting and finishes ``events`` and ``reachability``.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        reconnect?.cancel()
        reconnect = nil
        await connection.shutDown()
        eventContinuation.finish()
        reachabilityContinuation.finish()
    }

    /// The record with the address and configuration number in use now, to store again.
    public var currentRecord: PairedAccessoryRecord {
        var current = record
        current.host = host
        current.port = port
        if !current.addresses.contains(host) { current.addresses = [host] }
        current.configurationNumber = configurationNumber
        return current
    }

    /// Moves the client to a new address (seen over mDNS); a live session is dropped and made again there.
    public func noteAddress(host newHost: String, port newPort: Int) async {
        guard newHost != host || newPort != port, !isClosed else { return }
        host = newHost
        port = newPort
        let old = connection
        connection = Self.makeConnection(
            host: newHost,
            port: newPort,
            identity: identity,
            record: record,
            configuration: configuration,
            eventLoop: eventLoop,
            logger: logger
        )
        isListening = false
        await old.shutDown()
        listen()
        if isReachable == true { sessionLost() }
    }

    private static func makeConnection(
        host: String,
        port: Int,
        identity: ControllerIdentity,
        record: PairedAccessoryRecord,
        configuration: Configuration,
        eventLoop: any EventLoop,
        logger: Logger
    ) -> AccessoryConnection {
        AccessoryConnection(
            host: host,
            port: port,
            security: .verified(identity, record.pairing),
            timeouts: configuration.timeouts,
            eventLoop: eventLoop,
            logger: logger
        )
    }

    // MARK: Database

    /// The accessory database, read once and again after the configuration number changes.
    public func accessories() async throws(HAPControllerError) -> AccessoryDatabase {
        if let database { return database }
        let response = try await send(.get, path: "/accessories")
        guard response.status.code == 200 else { throw Self.statusError(response) }
        guard let decoded = try? HAPJSON.decode(AccessoryDatabase.self, from: Data(response.body)) else {
            throw .malformedBody
        }
        database = decoded
        return decoded
    }

    /// Records the configuration number (`c#`) seen over mDNS; a change reads the database again and reports it.
    ///
    /// The first number noted, when none was stored, is taken as the one of the database already read.
    public func noteConfigurationNumber(_ number: Int) async {
        guard number != configurationNumber else { return }
        let previous = configurationNumber
        configurationNumber = number
        guard previous != nil else { return }
        database = nil
        guard !isClosed else { return }
        do {
            eventContinuation.yield(.databaseChanged(try await accessories()))
        } catch {
            logger.debug("Could not read the changed database", metadata: ["error": "\(error)"])
        }
    }

    /// Subscribes this session to events of these characteristics; kept across reconnects when accepted.
    @discardableResult
    public func subscribe(_ ids: [CharacteristicID]) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let results = try await setEvents(true, for: ids)
        for (id, status) in results where status.isSuccess { subscriptions.insert(id) }
        return results
    }

    /// Ends the subscriptions to these characteristics.
    @discardableResult
    public func unsubscribe(
        _ ids: [CharacteristicID]
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        for id in ids { subscriptions.remove(id) }
        return try await setEvents(false, for: ids)
    }

    /// Runs the identify routine of an accessory (aid 1 by default) by writing its Identify characteristic.
    public func identify(accessoryID: UInt64 = 1) async throws(HAPControllerError) {
        let database = try await accessories()
        let identifyType = HAPUUID(apple: 0x14)
        guard let accessory = database.accessory(withID: accessoryID),
            let characteristic = accessory.services.flatMap(\.characteristics).first(where: { $0.type == identifyType })
        else {
            throw .characteristicNotFound(nil)
        }
        let id = CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
        let status = try await write([(id, .bool(true))])[id] ?? .serviceCommunicationFailure
        guard status.isSuccess else { throw .accessoryRefused(status) }
    }

    // MARK: Internals

    private func setEvents(
        _ enabled: Bool,
        for ids: [CharacteristicID]
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let items = ids.map {
            CharacteristicWriteRequest.Item(accessoryID: $0.accessoryID, instanceID: $0.instanceID, events: enabled)
        }
        return try await put(items, preparedWriteID: nil)
    }

    /// `value` typed by `format` when it has one and converts, else as it came.
    static func converted(_ value: HAPValue?, to format: Format?) -> HAPValue? {
        guard let value, let format else { return value }
        return (try? value.converted(to: format)) ?? value
    }

    /// Every characteristic's format, by id.
    static func formats(of database: AccessoryDatabase) -> [CharacteristicID: Format] {
        var formats: [CharacteristicID: Format] = [:]
        var seen: Set<UInt64> = []
        // Only the first accessory with an aid counts, and the first characteristic with an iid in it, as
        // `characteristic(at:)` finds them.
        for accessory in database.accessories where seen.insert(accessory.accessoryID).inserted {
            for service in accessory.services {
                for characteristic in service.characteristics {
                    let id = CharacteristicID(accessoryID: accessory.accessoryID, instanceID: characteristic.instanceID)
                    if formats[id] == nil { formats[id] = characteristic.format }
                }
            }
        }
        return formats
    }

    static func items(of response: HTTPResponse) throws(HAPControllerError) -> [CharacteristicReadResponse.Item] {
        guard let decoded = try? HAPJSON.decodeReadResponse(response.body) else {
            throw .malformedBody
        }
        return decoded.characteristics
    }

    static func statusError(_ response: HTTPResponse) -> HAPControllerError {
        .unexpectedHTTPStatus(code: response.status.code, status: AccessoryConnection.hapStatus(in: response.body))
    }

}
