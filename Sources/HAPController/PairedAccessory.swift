import Foundation
import HAP
import HAPTypes
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A characteristic's new value, as an accessory's event reported it.
public struct CharacteristicValueChange: Sendable, Equatable, Hashable {
    /// Which characteristic.
    public var id: CharacteristicID
    /// Its new value; `nil` for a JSON null (ProgrammableSwitchEvent reads as null, hap-protocol.md §7.5).
    public var value: HAPValue?

    /// Makes a change.
    public init(id: CharacteristicID, value: HAPValue?) {
        self.id = id
        self.value = value
    }
}

/// What a paired accessory reports on its own.
public enum AccessoryEvent: Sendable, Equatable {
    /// Subscribed characteristics changed (one EVENT message).
    case valuesChanged([CharacteristicValueChange])
    /// An event could not be used: unknown characteristic, unreadable body; the connection keeps working.
    case invalidEvent(HAPControllerError)
    /// The configuration number changed and the accessory database was read again.
    case databaseChanged(AccessoryDatabase)
}

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
public actor PairedAccessory {
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

    // MARK: Reads and writes

    /// Reads characteristics in batches of at most ``Configuration/maximumReadBatch``; one result per id.
    ///
    /// An id the accessory leaves out of its answer reads as ``HAPStatus/resourceDoesNotExist``. It runs where its
    /// caller runs: a caller on ``taskExecutor`` makes no executor hop (see ``send(_:path:readQuery:body:)``).
    public nonisolated(nonsending) func read(
        _ ids: [CharacteristicID]
    ) async throws(HAPControllerError) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        let unique = Self.withoutRepeats(ids)
        var results: [CharacteristicID: Result<HAPValue?, HAPStatus>] = Dictionary(minimumCapacity: unique.count)
        var start = 0
        while start < unique.count {
            let chunk =
                unique.count <= configuration.maximumReadBatch
                ? unique : Array(unique[start..<min(start + configuration.maximumReadBatch, unique.count)])
            start += chunk.count
            let response = try await send(
                .get,
                path: "/characteristics",
                readQuery: CharacteristicReadQuery(ids: chunk)
            )
            guard response.status.code == 200 || response.status.code == 207 else {
                throw Self.statusError(response)
            }
            let items = try Self.items(of: response)
            let formats = self.formats
            for item in items {
                if let status = item.status, !status.isSuccess {
                    results[item.id] = .failure(status)
                } else {
                    results[item.id] = .success(Self.converted(item.value, to: formats[item.id]))
                }
            }
            for id in chunk where results[id] == nil { results[id] = .failure(.resourceDoesNotExist) }
        }
        return results
    }

    /// Writes values in one request; one status per characteristic.
    public nonisolated(nonsending) func write(
        _ writes: [(CharacteristicID, HAPValue)]
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let items = writes.map { id, value in
            Self.writeItem(id, value)
        }
        return try await put(items, preparedWriteID: nil)
    }

    /// Writes values asking for the accessory's answer (`"r": true`, hap-protocol.md §7); one outcome each.
    ///
    /// A success carries the value the accessory answered with, typed by the database's format when it was read;
    /// it is `nil` when the accessory sent none (a characteristic without the `wr` permission answers 204) or null.
    public nonisolated(nonsending) func writeWithResponse(
        _ writes: [(CharacteristicID, HAPValue)]
    ) async throws(HAPControllerError) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        let items = writes.map { id, value in
            var item = Self.writeItem(id, value)
            item.requestsResponse = true
            return item
        }
        var results: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        let answers = try await exchange(items, preparedWriteID: nil)
        let formats = self.formats
        for (id, answer) in answers {
            results[id] =
                answer.status.isSuccess
                ? .success(Self.converted(answer.value, to: formats[id])) : .failure(answer.status)
        }
        return results
    }

    /// A timed write (hap-protocol.md §7.7): `PUT /prepare` with a fresh id, then the write carrying it.
    public nonisolated(nonsending) func timedWrite(
        _ writes: [(CharacteristicID, HAPValue)],
        timeToLive: Duration = .seconds(5)
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let preparedWriteID = UInt64.random(in: 1...UInt64(UInt32.max))
        let milliseconds =
            UInt64(max(0, timeToLive.components.seconds)) * 1000
            + UInt64(max(0, timeToLive.components.attoseconds) / 1_000_000_000_000_000)
        let prepare = PrepareWriteRequest(timeToLiveMilliseconds: milliseconds, preparedWriteID: preparedWriteID)
        guard let body = try? HAPJSON.encode(prepare) else { throw .malformedBody }
        let response = try await send(.put, path: "/prepare", body: Array(body))
        guard response.status.code == 200 else { throw Self.statusError(response) }
        if let status = AccessoryConnection.hapStatus(in: response.body), !status.isSuccess {
            throw .accessoryRefused(status)
        }
        let items = writes.map { id, value in
            Self.writeItem(id, value)
        }
        return try await put(items, preparedWriteID: preparedWriteID)
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

    // MARK: Pairings

    /// Every controller paired with the accessory (admin only).
    public func listPairings() async throws(HAPControllerError) -> [Pairing] {
        let reply = try await connection.postTLV8("/pairings", PairingsRequest.list())
        do {
            return try PairingsRequest.pairings(inListReply: reply)
        } catch {
            throw Self.pairingsError(error)
        }
    }

    /// Adds another controller, or changes its permissions (admin only).
    public func addPairing(identifier: String, publicKey: [UInt8], isAdmin: Bool) async throws(HAPControllerError) {
        let request = PairingsRequest.add(identifier: Array(identifier.utf8), publicKey: publicKey, isAdmin: isAdmin)
        try await pairingsRequest(request)
    }

    /// Removes a controller's pairing; removing an unknown one succeeds (hap-protocol.md §6).
    public func removePairing(identifier: String) async throws(HAPControllerError) {
        try await pairingsRequest(PairingsRequest.remove(identifier: Array(identifier.utf8)))
    }

    /// Removes this controller's own pairing and closes the client; forget the record afterwards.
    public func unpair() async throws(HAPControllerError) {
        try await removePairing(identifier: identity.pairingID)
        await close()
    }

    // MARK: Internals

    private func pairingsRequest(_ request: TLV8) async throws(HAPControllerError) {
        let reply = try await connection.postTLV8("/pairings", request)
        do {
            try PairingsRequest.checkReply(reply)
        } catch {
            throw Self.pairingsError(error)
        }
    }

    private func setEvents(
        _ enabled: Bool,
        for ids: [CharacteristicID]
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        let items = ids.map {
            CharacteristicWriteRequest.Item(accessoryID: $0.accessoryID, instanceID: $0.instanceID, events: enabled)
        }
        return try await put(items, preparedWriteID: nil)
    }

    private nonisolated(nonsending) func put(
        _ items: [CharacteristicWriteRequest.Item],
        preparedWriteID: UInt64?
    ) async throws(HAPControllerError) -> [CharacteristicID: HAPStatus] {
        try await exchange(items, preparedWriteID: preparedWriteID).mapValues(\.status)
    }

    /// One characteristic's answer to a write: its status and, for a write response, its value.
    private struct WriteAnswer {
        var status: HAPStatus
        var value: HAPValue?
    }

    private nonisolated(nonsending) func exchange(
        _ items: [CharacteristicWriteRequest.Item],
        preparedWriteID: UInt64?
    ) async throws(HAPControllerError) -> [CharacteristicID: WriteAnswer] {
        guard !items.isEmpty else { return [:] }
        let request = CharacteristicWriteRequest(characteristics: items, preparedWriteID: preparedWriteID)
        guard let body = try? HAPJSON.encode(request) else { throw .malformedBody }
        let response = try await send(.put, path: "/characteristics", body: Array(body))
        var results: [CharacteristicID: WriteAnswer] = [:]
        switch response.status.code {
        case 204:
            for item in items { results[item.id] = WriteAnswer(status: .success) }
        case 200, 207:
            for item in try Self.items(of: response) {
                results[item.id] = WriteAnswer(status: item.status ?? .success, value: item.value)
            }
            for item in items where results[item.id] == nil {
                results[item.id] = WriteAnswer(status: .resourceDoesNotExist)
            }
        default:
            throw Self.statusError(response)
        }
        return results
    }

    /// Sends a hap+json request on the session and returns the answer.
    ///
    /// It runs where its caller runs and crosses to ``eventLoop`` at most once: on the loop (a caller preferring
    /// ``taskExecutor``, or this actor) it goes on at once; elsewhere one job on the loop takes it. There, with the
    /// session open and no request waiting, it is written before the caller suspends and the answer resumes the
    /// caller; otherwise a task sends it in its turn, connecting first if needed
    /// (``AccessoryConnection/startJSONOnLoop(_:path:readQuery:body:waiter:)``).
    nonisolated(nonsending) func send(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery? = nil,
        body: [UInt8] = []
    ) async throws(HAPControllerError) -> HTTPResponse {
        let result: Result<HTTPResponse, HAPControllerError>
        if eventLoop.inEventLoop {
            result = await withUnsafeContinuation { (waiter: AccessoryConnection.Waiter) in
                startOnLoop(method, path: path, readQuery: readQuery, body: body, waiter: waiter)
            }
        } else {
            result = await withUnsafeContinuation { (waiter: AccessoryConnection.Waiter) in
                eventLoop.execute {
                    self.startOnLoop(method, path: path, readQuery: readQuery, body: body, waiter: waiter)
                }
            }
        }
        // A failure to connect has been reported as unreachable on the loop already (`ConnectionEvent.unreachable`).
        return try result.get()
    }

    /// Checks the client is open and listening, then hands the request to the connection; on ``eventLoop``.
    private nonisolated func startOnLoop(
        _ method: HTTPMethod,
        path: String,
        readQuery: CharacteristicReadQuery?,
        body: [UInt8],
        waiter: AccessoryConnection.Waiter
    ) {
        do throws(HAPControllerError) {
            try prepareSendOnLoop().startJSONOnLoop(
                method,
                path: path,
                readQuery: readQuery,
                body: body,
                waiter: waiter
            )
        } catch {
            waiter.resume(returning: .failure(error))
        }
    }

    /// Checks the client is open, starts listening for sessions and events, and returns the connection.
    private func prepareSend() throws(HAPControllerError) -> AccessoryConnection {
        if isClosed { throw .closed }
        listen()
        return connection
    }

    /// ``prepareSend()`` from ``eventLoop``, this actor's executor, where no other code of the actor can be
    /// running: what `assumeIsolated` does, without the allocation its closure costs (the cast drops only the
    /// `isolated` of a closure that captures nothing).
    private nonisolated func prepareSendOnLoop() throws(HAPControllerError) -> AccessoryConnection {
        eventLoop.preconditionInEventLoop()
        let isolatedPrepare: (isolated PairedAccessory) throws(HAPControllerError) -> AccessoryConnection = {
            try $0.prepareSend()
        }
        let prepare = unsafeBitCast(
            isolatedPrepare,
            to: ((PairedAccessory) throws(HAPControllerError) -> AccessoryConnection).self
        )
        return try prepare(self)
    }

    /// A write item; hap-protocol.md §7.6: bools go out as 0 and 1, which every peer accepts (aiohomekit README).
    static func writeItem(_ id: CharacteristicID, _ value: HAPValue) -> CharacteristicWriteRequest.Item {
        var sent = value
        if case .bool(let flag) = value { sent = .int(flag ? 1 : 0) }
        return CharacteristicWriteRequest.Item(accessoryID: id.accessoryID, instanceID: id.instanceID, value: sent)
    }

    /// `ids` in order with repeats left out; a list without repeats is returned as it is, without a copy.
    static func withoutRepeats(_ ids: [CharacteristicID]) -> [CharacteristicID] {
        // A short list is checked pair by pair, which needs no set.
        if ids.count <= 16 {
            var hasRepeat = false
            for index in ids.indices.dropFirst() where ids[..<index].contains(ids[index]) {
                hasRepeat = true
                break
            }
            if !hasRepeat { return ids }
        }
        var seen: Set<CharacteristicID> = []
        return ids.filter { seen.insert($0).inserted }
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

    static func pairingsError(_ failure: PairingFailure) -> HAPControllerError {
        if case .accessoryRefused(let error, _) = failure { return .pairingRefused(error) }
        return .pairingFailed(failure)
    }
}
