import AtomicFiles
import Foundation
import GRDB
import HomeGraph
import Synchronization

import enum HAPTypes.HAPValue

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Closes a file descriptor (outside the store, whose `close` is another).
func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

/// The home graph on disk: a durable log of the operations its owner applied, with a sealed snapshot now and then.
///
/// The store does not apply operations: its owner (the hub) applies them to its graph, then hands the operations
/// that changed something to `append(_:resulting:)` with the graph they produced. `append` writes them in one
/// SQLite transaction (WAL, `synchronous = NORMAL`) before it returns, so they survive a kill -9 of the process;
/// `synced(through:)` waits until they also survive a power cut (one `fdatasync` of the log on the store's own
/// thread, shared by every write that waits meanwhile). A write nobody waits for is synced within `syncDelay`.
/// A store that was not closed cleanly may have handed out change numbers that never reached the disk, so on
/// opening it skips every home's numbering ahead (`HomeGraph.skipSequences(by:)`): no number is reused, and
/// clients that saw the lost ones reload. After every `snapshotInterval` operations the graph last given is written
/// too and the older rows are deleted; the snapshot is encoded and sealed on another thread, so the append that crossed the
/// interval does not wait for it (a large graph takes tens of milliseconds), and it is stored in a transaction of
/// its own when ready. Until then the operations stay in the log, so a crash at any point loses nothing. Opening
/// reads the newest snapshot and replays the operations after it through `HomeGraph.replay(_:)`, which does not
/// check names again: a store written before a naming rule tightened still opens, and only new writes are checked.
///
/// One owner appends at a time (the hub's actor); the store's own state sits behind a lock, so the background
/// snapshot, the syncs and readers of `graph` may run on any thread.
public final class HomeStore: Sendable {
    /// How many operations are logged between snapshots unless told otherwise.
    public static let defaultSnapshotInterval = 2000
    /// How far every home's numbering moves ahead when the store opens after an unclean stop: more than the
    /// changes that can be written and not yet synced (`unsyncedChangeLimit`, and one batch more).
    public static let sequenceSkip: UInt64 = 1_000_000
    /// Past this many unsynced operations an append starts a sync on the store's thread.
    static let unsyncedLimit: Int64 = 1000
    /// Past this many unsynced changes (numbers handed out) an append syncs before it returns unless told
    /// otherwise, so however slow the disk, no more than this (and one batch) can be lost to a power cut.
    public static let defaultUnsyncedChangeLimit: UInt64 = 10_000

    /// The graph as of the last acknowledged operation: read at opening, then as given to `append`.
    public var graph: HomeGraph { state.withLock { $0.graph } }
    /// The number of the last operation written, 0 before any; it only grows.
    public var lastOperationSequence: Int64 { state.withLock { $0.lastOperationSequence } }
    /// The number of the last operation known to be on disk, synced: a power cut loses none up to it.
    public var syncedSequence: Int64 { state.withLock { $0.syncedSequence } }
    /// How many written operations are not synced yet: a power cut now would lose them, a kill would not.
    public var unsyncedOperations: Int64 { state.withLock { $0.lastOperationSequence - $0.syncedSequence } }
    /// Whether the store found at opening that it had not been closed cleanly (a kill, a crash, a power cut, or a
    /// store from before clean stops were recorded) and so skipped every home's numbering ahead; false for a new
    /// store.
    public let openedAfterUncleanStop: Bool
    /// Why the last background snapshot could not be stored, or `nil` once one was; the operations stay in the log
    /// meanwhile, so nothing is lost, but the log grows and opening replays more.
    public var lastSnapshotError: HomeStoreError? { state.withLock { $0.lastSnapshotError } }

    private let database: DatabaseQueue
    private let deviceKey: DeviceKey
    private let snapshotInterval: Int
    private let historyLimit: Int
    let syncDelay: Duration
    let unsyncedChangeLimit: UInt64
    let state: Mutex<State>
    /// The write-ahead log, opened once more to sync it from the store's own thread.
    let logDescriptor: Int32
    /// Where syncs run, one at a time.
    let syncQueue = DispatchQueue(label: "hearth.home-store.sync")

    /// What changes as operations are appended.
    struct State {
        var graph: HomeGraph
        var lastOperationSequence: Int64
        var lastSnapshotSequence: Int64
        var isClosed = false
        /// The snapshot being encoded on another thread, if one is.
        var pendingSnapshot: Task<Void, Never>?
        /// No background snapshot starts before this operation number: a failed one waits a whole interval.
        var nextSnapshotAttempt: Int64 = 0
        var lastSnapshotError: HomeStoreError?
        /// The last operation synced to disk.
        var syncedSequence: Int64
        /// Whether a sync is running on `syncQueue`, and whether another must follow it.
        var isSyncing = false
        var syncsAgain = false
        /// Whether a sync is due within `syncDelay`.
        var isSyncScheduled = false
        /// The callers waiting for their operations to be on disk.
        var syncWaiters: [SyncWaiter] = []
        /// The changes numbered so far (the sum of the graph's last numbers), and as of the last sync.
        var numbered: UInt64 = 0
        var syncedNumbered: UInt64 = 0
        /// Why a sync failed, kept: every later append and wait throws it; only opening again clears it.
        ///
        /// Sticky, since the kernel may drop the pages it could not write and a later sync then succeed without them.
        var syncFailure: HomeStoreError?
    }

    /// Opens (creating on first start) the store in `folder`: `device.key` and `home.sqlite`, and reads the graph.
    ///
    /// A new store starts with an empty graph that keeps `historyLimit` changes per home. Writes nobody waits for
    /// are synced within `syncDelay`, and an append past `unsyncedChangeLimit` unsynced changes syncs at once (at
    /// most ``sequenceSkip``).
    public init(
        folder: String,
        snapshotInterval: Int = HomeStore.defaultSnapshotInterval,
        historyLimit: Int = 1000,
        syncDelay: Duration = .seconds(1),
        unsyncedChangeLimit: UInt64 = HomeStore.defaultUnsyncedChangeLimit
    ) throws(HomeStoreError) {
        precondition(snapshotInterval > 0, "snapshotInterval must be positive")
        precondition(unsyncedChangeLimit < Self.sequenceSkip / 2, "the skip must cover the unsynced changes")
        let deviceKey: DeviceKey
        let database: DatabaseQueue
        let isNew: Bool
        do {
            // Only the owner may read the folder and the database; SQLite gives the -wal and -shm files the
            // database file's mode. Files of an older Hearth that others could read are tightened.
            try PrivateFolder.prepare(atPath: folder)
            if FileManager.default.fileExists(atPath: folder + "/device.key") {
                try PrivateFolder.prepareFile(atPath: folder + "/device.key")
            }
            deviceKey = try DeviceKey.loadOrCreate(atPath: folder + "/device.key")
            try PrivateFolder.prepareFile(atPath: folder + "/home.sqlite")
            (database, isNew) = try Self.openDatabase(atPath: folder + "/home.sqlite")
            for suffix in ["-wal", "-shm"]
            where FileManager.default.fileExists(atPath: folder + "/home.sqlite" + suffix) {
                try PrivateFolder.prepareFile(atPath: folder + "/home.sqlite" + suffix)
            }
        } catch let error as PrivateFolderError {
            throw .notPrivate(error)
        } catch let error as HomeStoreError {
            throw error
        } catch {
            throw .stateFolder(path: folder, code: EIO)
        }
        var loaded = try Self.load(from: database, key: deviceKey, historyLimit: historyLimit)
        let descriptor = open(folder + "/home.sqlite-wal", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            try? database.close()
            throw .stateFolder(path: folder, code: code)
        }
        let skipped: Bool
        do {
            skipped = try Self.markOpen(
                database,
                isNew: isNew,
                loaded: &loaded,
                key: deviceKey,
                logDescriptor: descriptor
            )
            // The log file is new at every opening (SQLite deletes it at a clean close): sync its folder entry too.
            try Self.syncFolder(folder)
        } catch {
            closeDescriptor(descriptor)
            try? database.close()
            throw error
        }
        self.database = database
        self.deviceKey = deviceKey
        self.snapshotInterval = snapshotInterval
        self.historyLimit = historyLimit
        self.syncDelay = syncDelay
        self.unsyncedChangeLimit = unsyncedChangeLimit
        logDescriptor = descriptor
        openedAfterUncleanStop = skipped
        state = Mutex(
            State(
                graph: loaded.graph,
                lastOperationSequence: loaded.lastOperationSequence,
                lastSnapshotSequence: loaded.lastSnapshotSequence,
                syncedSequence: loaded.lastOperationSequence,
                numbered: Self.numbered(loaded.graph),
                syncedNumbered: Self.numbered(loaded.graph)
            )
        )
    }

    deinit {
        // Only here: a sync on `syncQueue` holds the store, so no sync can be using the descriptor.
        closeDescriptor(logDescriptor)
    }

    /// Reads the graph from disk again, as a restart would, and makes it the current one.
    @discardableResult
    public func reload() throws(HomeStoreError) -> HomeGraph {
        try state.withLock { state throws(HomeStoreError) in
            guard !state.isClosed else { throw .closed }
            return try reload(&state)
        }
    }

    /// Writes `operations`, already applied in order by the owner and producing `graph`, in one transaction (synced
    /// later, see `synced(through:)`), or throws and writes none of them.
    ///
    /// For a stream of value updates this is group commit: the batch is acknowledged, or on a write failure thrown
    /// away, as a whole. Give only operations that changed the graph. `graph` is kept for the next snapshot. When
    /// writing fails, the store reads the disk back: its `graph` is then the acknowledged one, for the owner to
    /// take.
    public func append(_ operations: [HomeOperation], resulting graph: HomeGraph) throws(HomeStoreError) {
        try append(operations.map { LoggedOperation($0, by: nil, at: nil) }, resulting: graph)
    }

    /// Writes `operations` with who made them and when, in one transaction like the operations alone; reading the
    /// store back gives the history the same authors and times.
    public func append(_ operations: [LoggedOperation], resulting graph: HomeGraph) throws(HomeStoreError) {
        let sync = try state.withLock { state throws(HomeStoreError) -> NextSync in
            guard !state.isClosed else { throw .closed }
            if let failure = state.syncFailure { throw failure }
            guard !operations.isEmpty else { return .none }
            do throws(HomeStoreError) {
                try persist(operations, state: &state)
            } catch {
                // The disk is the truth: read it back (a failed commit may still have landed). If even reading
                // fails, the store is unusable until it is opened again.
                do { _ = try reload(&state) } catch { state.isClosed = true }
                throw error
            }
            state.graph = graph
            state.numbered = Self.numbered(graph)
            if state.numbered &- state.syncedNumbered >= unsyncedChangeLimit {
                // The disk is far behind: wait for it here, so no more numbers than the skip covers can be lost.
                do throws(HomeStoreError) {
                    try Self.sync(logDescriptor)
                } catch {
                    state.syncFailure = error
                    throw error
                }
                state.syncedSequence = state.lastOperationSequence
                state.syncedNumbered = state.numbered
            }
            if state.lastOperationSequence - state.lastSnapshotSequence >= Int64(snapshotInterval) {
                startSnapshot(&state)
            }
            return nextSync(&state)
        }
        start(sync)
    }

    /// Writes a snapshot of the graph last given now if operations were logged since the last one, so the next
    /// open has nothing to replay; `close()` does this.
    public func snapshot() async throws(HomeStoreError) {
        await waitForPendingSnapshot()
        try state.withLock { state throws(HomeStoreError) in
            guard !state.isClosed else { throw .closed }
            try snapshotNow(&state)
        }
    }

    /// Waits for a snapshot being encoded in the background to be stored, if one is.
    public func waitForPendingSnapshot() async {
        await state.withLock { $0.pendingSnapshot }?.value
    }

    /// Takes a last snapshot (unless `snapshot` is false or nothing was logged since), records a clean stop, syncs
    /// and closes the database.
    ///
    /// A snapshot being encoded in the background is stored first. Later calls throw `.closed`, and so do callers
    /// still waiting in `synced(through:)`. A failed snapshot loses nothing: the operations stay in the log.
    public func close(snapshot takesSnapshot: Bool = true) async throws(HomeStoreError) {
        await waitForPendingSnapshot()
        let (waiters, synced, outcome) = state.withLock { state in
            guard !state.isClosed else {
                return (
                    [SyncWaiter](), Result<Void, HomeStoreError>.success(()), Result<Void, HomeStoreError>.success(())
                )
            }
            var snapshotError: HomeStoreError?
            if takesSnapshot {
                do throws(HomeStoreError) { try snapshotNow(&state) } catch { snapshotError = error }
            }
            state.isClosed = true
            let waiters = state.syncWaiters
            state.syncWaiters = []
            // The clean stop is written last: a log that holds it holds everything before it. After a failed sync
            // the store cannot vouch for what is on disk, so it records no clean stop and the next opening skips.
            let synced = Result { () throws(HomeStoreError) in
                if let failure = state.syncFailure { throw failure }
                try Self.databaseCall {
                    try database.write { db in
                        try db.execute(sql: "INSERT OR REPLACE INTO cleanStop (id) VALUES (1)")
                    }
                }
                try Self.sync(logDescriptor)
                state.syncedSequence = state.lastOperationSequence
            }
            let closed = Result { () throws(HomeStoreError) in try Self.databaseCall { try database.close() } }
            let outcome = synced.flatMap { closed }.flatMap { snapshotError.map { .failure($0) } ?? .success(()) }
            return (waiters, synced, outcome)
        }
        for waiter in waiters { waiter.continuation.resume(returning: synced) }
        try outcome.get()
    }

    /// Reads the graph from disk into `state`.
    private func reload(_ state: inout State) throws(HomeStoreError) -> HomeGraph {
        let loaded = try Self.load(from: database, key: deviceKey, historyLimit: historyLimit)
        state.graph = loaded.graph
        state.lastOperationSequence = loaded.lastOperationSequence
        state.lastSnapshotSequence = loaded.lastSnapshotSequence
        return loaded.graph
    }

    /// Seals and stores a snapshot of `state.graph` on this thread, if operations were logged since the last one.
    private func snapshotNow(_ state: inout State) throws(HomeStoreError) {
        let last = state.lastOperationSequence
        guard last > state.lastSnapshotSequence else { return }
        try store(Self.sealedSnapshot(of: state.graph, at: last, key: deviceKey), state: &state)
    }

    // MARK: Snapshots

    /// The graph as of operation `sequence`, encoded and sealed; runs anywhere, the store's state is not touched.
    static func sealedSnapshot(
        of graph: HomeGraph,
        at sequence: Int64,
        key: DeviceKey
    ) throws(HomeStoreError) -> SnapshotRecord {
        let table = SnapshotRecord.databaseTableName
        let plaintext: Data
        do {
            plaintext = try snapshotJSON(of: graph)
        } catch {
            throw .unencodable(table: table, sequence: sequence)
        }
        return SnapshotRecord(sequence: sequence, payload: try key.seal(plaintext, table: table, sequence: sequence))
    }

    /// Writes `snapshot` and deletes the operations and snapshots it makes unnecessary, in one transaction.
    private func store(_ snapshot: SnapshotRecord, state: inout State) throws(HomeStoreError) {
        let last = snapshot.sequence
        try Self.databaseCall {
            try database.write { db in
                try snapshot.insert(db)
                try OperationRecord.filter(OperationRecord.Columns.sequence <= last).deleteAll(db)
                try SnapshotRecord.filter(SnapshotRecord.Columns.sequence < last).deleteAll(db)
            }
        }
        state.lastSnapshotSequence = max(state.lastSnapshotSequence, last)
        state.lastSnapshotError = nil
    }

    /// Encodes and seals the graph last given on another thread, then stores it under the lock; one at a time.
    ///
    /// The store's transaction (the snapshot's insert and the deletions) holds the lock, so an append that comes
    /// meanwhile waits for that, not for the encoding.
    private func startSnapshot(_ state: inout State) {
        guard state.pendingSnapshot == nil, state.lastOperationSequence >= state.nextSnapshotAttempt else { return }
        let (graph, sequence, key) = (state.graph, state.lastOperationSequence, deviceKey)
        state.pendingSnapshot = Task.detached(priority: .utility) { [weak self] in
            let sealed = Result { () throws(HomeStoreError) in
                try Self.sealedSnapshot(of: graph, at: sequence, key: key)
            }
            self?.finishSnapshot(sealed, at: sequence)
        }
    }

    /// Stores a snapshot sealed in the background, unless the store closed or a newer one was stored meanwhile.
    ///
    /// A failure keeps the operations in the log, is kept in `lastSnapshotError`, and the next attempt waits a
    /// whole interval.
    private func finishSnapshot(_ sealed: Result<SnapshotRecord, HomeStoreError>, at sequence: Int64) {
        state.withLock { state in
            state.pendingSnapshot = nil
            guard !state.isClosed, sequence > state.lastSnapshotSequence else { return }
            do throws(HomeStoreError) {
                try store(sealed.get(), state: &state)
            } catch {
                state.lastSnapshotError = error
                state.nextSnapshotAttempt = sequence + Int64(snapshotInterval)
            }
        }
    }

    // MARK: Writing

    /// Seals `operations` with the next numbers and writes them in one transaction; on failure nothing is written
    /// and the numbering is unchanged.
    private func persist(_ operations: [LoggedOperation], state: inout State) throws(HomeStoreError) {
        var records: [OperationRecord] = []
        records.reserveCapacity(operations.count)
        var sequence = state.lastOperationSequence
        for operation in operations {
            sequence += 1
            let table = OperationRecord.databaseTableName
            let plaintext: Data
            if let direct = Self.directJSON(of: operation) {
                plaintext = direct
            } else {
                plaintext = try Self.encode(operation, table: table, sequence: sequence)
            }
            records.append(
                OperationRecord(
                    sequence: sequence,
                    payload: try deviceKey.seal(plaintext, table: table, sequence: sequence)
                )
            )
        }
        try Self.databaseCall {
            try database.writeWithoutTransaction { db in
                // Cached statements, the transaction's too: GRDB's record insert encodes through Codable and builds
                // its SQL every time, and its `write` parses BEGIN and COMMIT for every transaction.
                let begin = try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION")
                let insert = try db.cachedStatement(sql: OperationRecord.insertSQL)
                let commit = try db.cachedStatement(sql: "COMMIT TRANSACTION")
                try begin.execute()
                do {
                    for record in records { try insert.execute(arguments: [record.sequence, record.payload]) }
                    try commit.execute()
                } catch {
                    // All or nothing: a failed insert or commit leaves no part of the batch behind.
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                    throw error
                }
            }
        }
        state.lastOperationSequence = sequence
    }

    /// The JSON of a logged value change with a Boolean or whole-number value, or of a trigger's state, written
    /// directly: what `JSONEncoder()` writes, field for field (`{"operation": {"writeCharacteristicValue": {…}}, "by":
    /// …, "at": …}`, the time in seconds since 2001), read back by the same decoder; `nil` for any other operation.
    ///
    /// Value changes and trigger states are most of the log, and each is encoded before its commit, on the path of
    /// every write and every automation.
    static func directJSON(of logged: LoggedOperation) -> Data? {
        let kind: String
        let home: UUID
        let characteristic: UUID
        let value: HAPValue
        switch logged.operation {
        case .writeCharacteristicValue(let h, let c, let v):
            (kind, home, characteristic, value) = ("writeCharacteristicValue", h, c, v)
        case .updateCharacteristicValue(let h, let c, let v):
            (kind, home, characteristic, value) = ("updateCharacteristicValue", h, c, v)
        case .setTriggerState(let home, let trigger, let state):
            guard let text = directTriggerStateJSON(home: home, trigger: trigger, state: state) else { return nil }
            return directJSON(operation: text, by: logged.by, at: logged.at)
        default: return nil
        }
        guard let valueText = value.plainJSON else { return nil }
        var text = "{\"\(kind)\":{\"home\":\"\(home.canonicalString)\",\"characteristic\":\""
        text += characteristic.canonicalString
        text += "\",\"value\":\(valueText)}}"
        return directJSON(operation: text, by: logged.by, at: logged.at)
    }

    /// `{"operation":` and `operation`'s JSON, followed by who made it and when; `nil` for a time in fractions of a
    /// second (the hub stamps whole seconds).
    private static func directJSON(operation: String, by: ChangeAuthor?, at: Date?) -> Data? {
        var text = "{\"operation\":" + operation
        if let by { text += ",\"by\":" + by.plainJSON }
        if let at {
            // Whole seconds only (the hub stamps whole seconds): written as an integer, read back exactly.
            let seconds = at.timeIntervalSinceReferenceDate
            guard seconds.rounded(.down) == seconds, abs(seconds) < 1e15 else { return nil }
            text += ",\"at\":\(Int64(seconds))"
        }
        text += "}"
        return Data(text.utf8)
    }

    private static func encode(_ value: some Encodable, table: String, sequence: Int64) throws(HomeStoreError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .unencodable(table: table, sequence: sequence)
        }
    }

    // MARK: Opening

    struct Loaded {
        var graph: HomeGraph
        var lastOperationSequence: Int64
        var lastSnapshotSequence: Int64
    }

    /// Opens (creating, migrating) the database; whether it was new.
    private static func openDatabase(atPath path: String) throws(HomeStoreError) -> (DatabaseQueue, Bool) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // WAL: a commit appends to the log; NORMAL: a commit is not synced (the store syncs the log itself,
            // `synced(through:)`), but the log is synced before a checkpoint copies it into the database.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            if mode?.lowercased() != "wal" {
                throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "WAL journal mode unavailable")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return try databaseCall {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            let migrator = Schema.migrator
            let (isNewer, applied) = try database.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.appliedIdentifiers(db))
            }
            if isNewer { throw HomeStoreError.newerSchema }
            try migrator.migrate(database)
            return (database, applied.isEmpty)
        }
    }

    private static func load(
        from database: DatabaseQueue,
        key: DeviceKey,
        historyLimit: Int
    ) throws(HomeStoreError) -> Loaded {
        try databaseCall {
            try database.read { db in
                var graph = HomeGraph(historyLimit: historyLimit)
                var snapshotSequence: Int64 = 0
                if let snapshot = try SnapshotRecord.order(SnapshotRecord.Columns.sequence.desc).fetchOne(db) {
                    graph = try decode(HomeGraph.self, snapshot.payload, key: key, table: "snapshot", snapshot.sequence)
                    snapshotSequence = snapshot.sequence
                }
                var last = snapshotSequence
                let operations = try OperationRecord.filter(OperationRecord.Columns.sequence > snapshotSequence)
                    .order(OperationRecord.Columns.sequence).fetchCursor(db)
                while let record = try operations.next() {
                    guard record.sequence == last + 1 else {
                        throw HomeStoreError.missingOperation(expected: last + 1, found: record.sequence)
                    }
                    let logged = try decode(
                        LoggedOperation.self,
                        record.payload,
                        key: key,
                        table: "operation",
                        record.sequence
                    )
                    do throws(HomeGraphError) {
                        try graph.replay(logged.operation, by: logged.by, at: logged.at)
                    } catch {
                        throw HomeStoreError.replayFailed(sequence: record.sequence, error)
                    }
                    last = record.sequence
                }
                return Loaded(graph: graph, lastOperationSequence: last, lastSnapshotSequence: snapshotSequence)
            }
        }
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type,
        _ payload: Data,
        key: DeviceKey,
        table: String,
        _ sequence: Int64
    ) throws(HomeStoreError) -> Value {
        let plaintext = try key.open(payload, table: table, sequence: sequence)
        do {
            return try JSONDecoder().decode(type, from: plaintext)
        } catch {
            throw .undecodable(table: table, sequence: sequence)
        }
    }

    /// Runs GRDB work, passing our own errors through and turning SQLite's into `.database`.
    static func databaseCall<Result>(_ body: () throws -> Result) throws(HomeStoreError) -> Result {
        do {
            return try body()
        } catch let error as HomeStoreError {
            throw error
        } catch let error as DatabaseError {
            throw .database(code: error.extendedResultCode.rawValue, message: error.message ?? "")
        } catch {
            throw .database(code: -1, message: String(describing: error))
        }
    }
}
