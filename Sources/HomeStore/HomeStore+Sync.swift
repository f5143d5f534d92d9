import Foundation
import GRDB
import HomeGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Syncing the log to disk off the writer's thread, and the clean stop that says whether numbers must be skipped.
extension HomeStore {
    /// The changes numbered in `graph`: the sum of every home's last number (it grows by one per change).
    static func numbered(_ graph: HomeGraph) -> UInt64 {
        graph.lastSequences.values.reduce(0) { $0 &+ $1 }
    }

    /// A caller of `synced(through:)` and the operation it waits for.
    struct SyncWaiter {
        var sequence: Int64
        var continuation: CheckedContinuation<Result<Void, HomeStoreError>, Never>
    }

    /// Records that the store is open, and skips every home's numbering ahead when the last stop was not clean.
    ///
    /// A stop without `close()` then shows at the next opening. The skip is a new snapshot; both are synced before
    /// any change is written. Returns whether it skipped.
    static func markOpen(
        _ database: DatabaseQueue,
        isNew: Bool,
        loaded: inout Loaded,
        key: DeviceKey,
        logDescriptor: Int32
    ) throws(HomeStoreError) -> Bool {
        let wasClean = try databaseCall {
            try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM cleanStop)") ?? false }
        }
        // Even a store without homes skips: a home whose addition a power cut took may have had numbers out.
        let skips = !wasClean && !isNew
        var snapshot: SnapshotRecord?
        if skips {
            loaded.graph.skipSequences(by: sequenceSkip)
            snapshot = try sealedSnapshot(of: loaded.graph, at: loaded.lastOperationSequence, key: key)
        }
        try databaseCall {
            try database.write { db in
                try db.execute(sql: "DELETE FROM cleanStop")
                if let snapshot {
                    // The same number as the last snapshot when no operation followed it: this one replaces it.
                    try snapshot.insert(db, onConflict: .replace)
                    try OperationRecord.filter(OperationRecord.Columns.sequence <= snapshot.sequence).deleteAll(db)
                    try SnapshotRecord.filter(SnapshotRecord.Columns.sequence < snapshot.sequence).deleteAll(db)
                }
            }
        }
        if let snapshot { loaded.lastSnapshotSequence = snapshot.sequence }
        try sync(logDescriptor)
        return skips
    }

    /// `fdatasync` of the write-ahead log.
    static func sync(_ descriptor: Int32) throws(HomeStoreError) {
        var result: Int32
        repeat { result = fdatasync(descriptor) } while result != 0 && errno == EINTR
        guard result == 0 else { throw .syncFailed(code: errno) }
    }

    /// `fsync` of the state folder, for the entries of files created in it.
    static func syncFolder(_ folder: String) throws(HomeStoreError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .stateFolder(path: folder, code: errno) }
        defer { closeDescriptor(descriptor) }
        var result: Int32
        repeat { result = fsync(descriptor) } while result != 0 && errno == EINTR
        guard result == 0 else { throw .syncFailed(code: errno) }
    }

    /// Waits until the operations up to `sequence` (at most the last written) are synced to disk, starting a sync
    /// now unless they are.
    ///
    /// Callers that wait meanwhile share one sync. Throws when syncing fails (then and ever after, until the store
    /// is opened again) or the store is closed first.
    public func synced(through sequence: Int64) async throws(HomeStoreError) {
        let done: Result<Bool, HomeStoreError> = state.withLock { state in
            if let failure = state.syncFailure { return .failure(failure) }
            return .success(state.syncedSequence >= min(sequence, state.lastOperationSequence))
        }
        if try done.get() { return }
        let result = await withCheckedContinuation { continuation in
            let refused: HomeStoreError? = state.withLock { state in
                if state.isClosed { return .closed }
                if let failure = state.syncFailure { return failure }
                let target = min(sequence, state.lastOperationSequence)
                state.syncWaiters.append(SyncWaiter(sequence: target, continuation: continuation))
                return nil
            }
            if let refused { continuation.resume(returning: .failure(refused)) } else { startSync() }
        }
        try result.get()
    }

    /// What an append asks of the syncs: nothing, a sync now, or one within `syncDelay`.
    enum NextSync {
        case none, now, later
    }

    /// What the append that left `state` needs: a sync at once when too many operations wait for one, else one
    /// within `syncDelay` unless one is due.
    func nextSync(_ state: inout State) -> NextSync {
        let unsynced = state.lastOperationSequence - state.syncedSequence
        guard unsynced > 0, !state.isClosed, state.syncFailure == nil else { return .none }
        if unsynced >= Self.unsyncedLimit { return .now }
        guard !state.isSyncScheduled else { return .none }
        state.isSyncScheduled = true
        return .later
    }

    /// Carries out what `nextSync(_:)` decided, outside the lock.
    func start(_ sync: NextSync) {
        switch sync {
        case .none: return
        case .now: startSync()
        case .later:
            let (seconds, attoseconds) = syncDelay.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            syncQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
                guard let self else { return }
                state.withLock { $0.isSyncScheduled = false }
                startSync()
            }
        }
    }

    /// Runs a sync on the store's thread, or asks the running one to run again when it ends.
    func startSync() {
        let starts = state.withLock { state in
            if state.isSyncing {
                state.syncsAgain = true
                return false
            }
            state.isSyncing = true
            return true
        }
        if starts { syncQueue.async { self.runSyncs() } }
    }

    /// Syncs the log until no caller waits for a later operation, then answers the callers it covered.
    func runSyncs() {
        while true {
            // What to sync up to, or why nothing can be.
            let (target, refusal): ((sequence: Int64, numbered: UInt64)?, HomeStoreError?) = state.withLock { state in
                state.syncsAgain = false
                if let failure = state.syncFailure { return (nil, failure) }
                if state.isClosed { return (nil, .closed) }
                return ((state.lastOperationSequence, state.numbered), nil)
            }
            var failure = refusal
            if target != nil {
                do throws(HomeStoreError) {
                    try Self.sync(logDescriptor)
                    failure = nil
                } catch {
                    failure = error
                }
            }
            let (answered, again): ([SyncWaiter], Bool) = state.withLock { state in
                if let failure, state.syncFailure == nil, failure != .closed { state.syncFailure = failure }
                if failure == nil, let target, state.syncFailure == nil {
                    state.syncedSequence = max(state.syncedSequence, target.sequence)
                    state.syncedNumbered = max(state.syncedNumbered, target.numbered)
                }
                var answered: [SyncWaiter] = []
                state.syncWaiters.removeAll { waiter in
                    guard failure != nil || waiter.sequence <= state.syncedSequence else { return false }
                    answered.append(waiter)
                    return true
                }
                let again = state.syncsAgain || (!state.syncWaiters.isEmpty && failure == nil)
                if !again { state.isSyncing = false }
                return (answered, again)
            }
            for waiter in answered {
                waiter.continuation.resume(returning: failure.map { .failure($0) } ?? .success(()))
            }
            guard again else { return }
        }
    }
}
