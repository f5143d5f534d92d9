import Foundation
import HomeGraph
import HomeStore
import Testing

/// Writes are synced to disk on the store's own thread: at once for a caller that waits, within the delay for
/// the rest; a store that was not closed cleanly skips every home's numbering when it opens again.
@Suite struct SyncTests {
    @Test func aWaitingCallerGetsItsOperationsSynced() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 2)
        // No sync of its own within the test: only the caller's wait can sync.
        let store = try HomeStore(folder: fixture.folder, syncDelay: .seconds(600))
        for operation in operations { try store.apply(operation) }
        let last = store.lastOperationSequence
        #expect(last == Int64(operations.count))
        #expect(store.syncedSequence < last)
        // Several callers at once share syncs, and each is answered.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await store.synced(through: last) } }
            try await group.waitForAll()
        }
        #expect(store.syncedSequence == last)
        try await store.close()
    }

    @Test func writesNobodyWaitsForAreSyncedWithinTheDelay() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 2)
        let store = try HomeStore(folder: fixture.folder, syncDelay: .milliseconds(50))
        for operation in operations { try store.apply(operation) }
        let last = store.lastOperationSequence
        let deadline = ContinuousClock.now + .seconds(10)
        while store.syncedSequence < last, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(store.syncedSequence == last)
        try await store.close()
    }

    @Test func closingSyncsEverything() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 1)
        let store = try HomeStore(folder: fixture.folder, syncDelay: .seconds(600))
        for operation in operations { try store.apply(operation) }
        #expect(store.unsyncedOperations > 0)
        try await store.close()
        #expect(store.unsyncedOperations == 0)
        // Nothing is left to wait for, and a number past the last is not waited for either.
        try await store.synced(through: store.lastOperationSequence + 5)
    }

    @Test func anUncleanStopSkipsEveryHomesNumberingAndClientsFromBeforeReload() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (home, operations) = fixture.homeOperations(lamps: 2)
        var before: UInt64 = 0
        var kept = 0
        do {
            let store = try HomeStore(folder: fixture.folder)
            for operation in operations { try store.apply(operation) }
            before = store.graph.lastSequence(ofHome: home)
            kept = store.graph.recentChanges[home]?.count ?? 0
            // Dropped without close(): as after a kill.
        }
        #expect(before > 2)
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.openedAfterUncleanStop)
        let skipped = before + HomeStore.sequenceSkip
        #expect(reopened.graph.lastSequence(ofHome: home) == skipped)
        // The history survives; a client at any number from before the stop reloads.
        #expect(reopened.graph.recentChanges[home]?.count == kept)
        for after in [before - 2, before, before + 1, skipped - 1] {
            #expect(
                try reopened.graph.changes(after: after, inHome: home) == .reloadRequired(currentSequence: skipped),
                "after \(after)"
            )
        }
        #expect(try reopened.graph.changes(after: skipped, inHome: home) == .events([]))
        // A history view still gets the newest changes, across the hole.
        let newest = try reopened.graph.recentChanges(last: 2, inHome: home)
        #expect(newest.map(\.sequence) == [before - 1, before])

        // New changes continue after the skipped numbers, and resume from there as usual.
        let renamed = try reopened.apply(.renameHome(home, name: "Quokka Manor Renamed"))
        #expect(renamed.first?.sequence == skipped + 1)
        #expect(try reopened.graph.changes(after: skipped, inHome: home) == .events(renamed))
        #expect(try reopened.graph.recentChanges(last: 2, inHome: home).map(\.sequence) == [before, skipped + 1])

        // A clean stop skips nothing.
        try await reopened.close()
        let again = try HomeStore(folder: fixture.folder)
        #expect(!again.openedAfterUncleanStop)
        #expect(again.graph.lastSequence(ofHome: home) == skipped + 1)
        #expect(try again.graph.changes(after: skipped, inHome: home) == .events(renamed))
        try await again.close()
    }

    @Test func aNewStoreAndACleanStopSkipNothing() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (home, operations) = fixture.homeOperations(lamps: 1)
        let store = try HomeStore(folder: fixture.folder)
        #expect(!store.openedAfterUncleanStop)
        for operation in operations { try store.apply(operation) }
        let last = store.graph.lastSequence(ofHome: home)
        try await store.close()
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(!reopened.openedAfterUncleanStop)
        #expect(reopened.graph.lastSequence(ofHome: home) == last)
        #expect(try reopened.graph.changes(after: last - 1, inHome: home).eventCount == 1)
        try await reopened.close()
    }
}

extension ChangeHistory {
    /// How many events the history holds; -1 when it asks for a reload.
    var eventCount: Int {
        switch self {
        case .events(let events): events.count
        case .reloadRequired: -1
        }
    }
}

/// A store without homes skips too: a home whose addition a power cut took may have had numbers out.
@Suite struct SkipFloorTests {
    @Test func aHomeAddedAfterAnUncleanStopStartsPastTheSkippedNumbers() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        do {
            let store = try HomeStore(folder: fixture.folder)
            #expect(!store.openedAfterUncleanStop)
            // Dropped without close(), and without a home.
        }
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.openedAfterUncleanStop)
        #expect(reopened.graph.sequenceFloor == HomeStore.sequenceSkip)
        let (home, operations) = fixture.homeOperations(lamps: 1)
        let events = try reopened.apply(operations[0])
        #expect(events.first?.homeID == home)
        #expect(events.first?.sequence == HomeStore.sequenceSkip + 1)
        let last = try #require(events.last?.sequence)
        try await reopened.close()
        // The floor is kept on disk.
        let again = try HomeStore(folder: fixture.folder)
        #expect(again.graph.sequenceFloor == HomeStore.sequenceSkip)
        #expect(again.graph.lastSequence(ofHome: home) == last)
        try await again.close()
    }
}

/// However slow the store's own syncs, no more changes than the limit wait for one: the append past it syncs.
@Suite struct UnsyncedLimitTests {
    @Test func anAppendPastTheLimitSyncsBeforeItReturns() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (home, operations) = fixture.homeOperations(lamps: 3)
        // No sync of the store's own within the test; at most 8 changes may wait for one.
        let store = try HomeStore(folder: fixture.folder, syncDelay: .seconds(600), unsyncedChangeLimit: 8)
        var syncedAt: UInt64 = 0
        var inlineSyncs = 0
        for operation in operations {
            try store.apply(operation)
            let last = store.graph.lastSequence(ofHome: home)
            if store.unsyncedOperations == 0 {
                syncedAt = last
                inlineSyncs += 1
            }
            #expect(last - syncedAt < 8, "\(last - syncedAt) changes wait for a sync")
        }
        #expect(inlineSyncs >= 2)
        #expect(store.graph.lastSequence(ofHome: home) > 16)
        try await store.close()
    }
}
