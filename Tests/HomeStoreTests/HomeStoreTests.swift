import Foundation
import GRDB
import HomeGraph
import HomeStore
import Testing

/// The graph after a JSON round trip: the same for graphs that differ only in how HAPValue decodes whole floats.
func normalised(_ graph: HomeGraph) throws -> HomeGraph {
    try JSONDecoder().decode(HomeGraph.self, from: JSONEncoder().encode(graph))
}

@Suite struct HomeStoreTests {
    @Test func roundTripThroughCloseAndReopen() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 5)
        let store = try HomeStore(folder: fixture.folder)
        var live = HomeGraph()
        for operation in operations {
            let events = try store.apply(operation)
            #expect(events == (try live.apply(operation)))
        }
        #expect(store.graph == live)
        #expect(store.lastOperationSequence == Int64(operations.count))
        try await store.close()

        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.graph == live)
        #expect(reopened.lastOperationSequence == Int64(operations.count))
    }

    @Test(arguments: [1, 3, 7, 1000])
    func snapshotsAndReplayEqualTheLiveGraph(interval: Int) async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 6)
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: interval)
        for operation in operations { try store.apply(operation) }
        let live = store.graph
        try await store.close()
        let reopened = try HomeStore(folder: fixture.folder, snapshotInterval: interval)
        let reopenedGraph = reopened.graph
        #expect(try normalised(reopenedGraph) == normalised(live))
        #expect(reopenedGraph == live)
        // Keep going after the reopen: the numbering and snapshots continue.
        let (_, more) = fixture.homeOperations(lamps: 2, suffix: " II")
        var expected = live
        for operation in more {
            try reopened.apply(operation)
            try expected.apply(operation)
        }
        try await reopened.close()
        let again = try HomeStore(folder: fixture.folder, snapshotInterval: interval)
        #expect(try normalised(again.graph) == normalised(expected))
    }

    @Test func snapshotsPruneTheLog() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 10)
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: 10)
        for operation in operations {
            try store.apply(operation)
            // Snapshots are sealed in the background; waiting for each makes them land on multiples of 10.
            await store.waitForPendingSnapshot()
        }
        try await store.close(snapshot: false)
        let database = try DatabaseQueue(path: fixture.folder + "/home.sqlite")
        let (operationRows, snapshotRows) = try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM snapshot")
            )
        }
        #expect(operationRows == operations.count % 10)
        #expect(snapshotRows == 1)
    }

    /// The snapshot after the interval is sealed off the store's actor and stored later; closing waits for it,
    /// and whether it made it to disk or not, reopening gives the same graph.
    @Test func aBackgroundSnapshotIsStoredBeforeCloseAndLosesNothing() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 6)
        let interval = 5
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: interval)
        for operation in operations { try store.apply(operation) }
        let live = store.graph
        try await store.close(snapshot: false)
        let database = try DatabaseQueue(path: fixture.folder + "/home.sqlite")
        let (operationRows, snapshotSequence) = try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation") ?? -1,
                try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM snapshot") ?? 0
            )
        }
        try database.close()
        #expect(snapshotSequence >= interval)
        // Every operation is either in the snapshot or after it in the log.
        #expect(operationRows == operations.count - snapshotSequence)
        let reopened = try HomeStore(folder: fixture.folder, snapshotInterval: interval)
        #expect(try normalised(reopened.graph) == normalised(live))
        #expect(reopened.lastOperationSequence == Int64(operations.count))
    }

    @Test func closingTakesASnapshotSoTheNextOpenReplaysNothing() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 10)
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: 1000)
        for operation in operations { try store.apply(operation) }
        let live = store.graph
        try await store.close()
        let database = try DatabaseQueue(path: fixture.folder + "/home.sqlite")
        let (operationRows, snapshotRows) = try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM snapshot")
            )
        }
        try database.close()
        #expect(operationRows == 0)
        #expect(snapshotRows == 1)
        let reopened = try HomeStore(folder: fixture.folder, snapshotInterval: 1000)
        #expect(reopened.graph == live)
        #expect(reopened.lastOperationSequence == Int64(operations.count))
        try await reopened.close()
    }

    @Test func failedOperationsPersistNothing() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (store, home) = try fixture.storeWithOneLampHome()
        let before = store.graph
        let sequence = store.lastOperationSequence
        #expect(throws: HomeGraphError.invalidName("  ", .nothingVisible)) {
            try store.apply(.addRoom(home: home, id: UUID(), name: "  "))
        }
        let missing = UUID()
        #expect(throws: HomeGraphError.notFound(.room, missing)) {
            try store.apply(.removeRoom(home: home, room: missing))
        }
        // Renaming to the same name changes nothing and writes nothing.
        #expect(try store.apply(.renameHome(home, name: "Quokka Manor")).isEmpty)
        #expect(store.graph == before)
        #expect(store.lastOperationSequence == sequence)
        try await store.close()
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.graph == before)
        #expect(reopened.lastOperationSequence == sequence)
    }

    @Test func aBatchIsWrittenTogetherAndSkipsRefusedOperations() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (home, operations) = fixture.homeOperations(lamps: 4)
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: 10)
        let missing = UUID()
        var batch = operations
        batch.insert(.removeRoom(home: home, room: missing), at: 3)
        let results = try store.apply(contentsOf: batch)
        var live = HomeGraph()
        for (operation, result) in zip(batch, results) {
            switch result {
            case .success(let events): #expect(events == (try live.apply(operation)))
            case .failure(let error): #expect(error == .notFound(.room, missing))
            }
        }
        #expect(results.filter { (try? $0.get()) == nil }.count == 1)
        #expect(store.graph == live)
        #expect(store.lastOperationSequence == Int64(operations.count))
        try await store.close()
        let reopened = try HomeStore(folder: fixture.folder, snapshotInterval: 10)
        #expect(try normalised(reopened.graph) == normalised(live))
        #expect(reopened.lastOperationSequence == Int64(operations.count))
    }

    /// A batch is one transaction: when its second row is refused, its first is not left behind either.
    @Test func aBatchWithARefusedRowWritesNoneOfIt() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (store, home) = try fixture.storeWithOneLampHome()
        let before = store.graph
        let sequence = store.lastOperationSequence
        let other = try await refusingInserts(in: fixture.folder, when: "NEW.sequence = \(sequence + 2)")
        let rooms = [UUID(), UUID()]
        #expect(throws: HomeStoreError.self) {
            try store.apply(contentsOf: [
                .addRoom(home: home, id: rooms[0], name: "Dingo Den"),
                .addRoom(home: home, id: rooms[1], name: "Emu Hall"),
            ])
        }
        #expect(store.graph == before)
        #expect(store.lastOperationSequence == sequence)
        let written = try await other.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM operation")
        }
        #expect(written == sequence)
        try await allowingInserts(other)
        // The store still writes, from the next number.
        _ = try store.apply(contentsOf: [.addRoom(home: home, id: rooms[0], name: "Dingo Den")])
        #expect(store.lastOperationSequence == sequence + 1)
        try await store.close()
    }

    @Test func aFailedWriteRollsTheGraphBack() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (store, home) = try fixture.storeWithOneLampHome()
        let before = store.graph
        let sequence = store.lastOperationSequence
        // Another connection makes SQLite refuse the next insert, as a full disk would.
        let other = try await refusingInserts(in: fixture.folder)
        let room = UUID()
        #expect(throws: HomeStoreError.self) {
            try store.apply(.addRoom(home: home, id: room, name: "Dingo Den"))
        }
        #expect(store.graph == before)
        #expect(store.lastOperationSequence == sequence)
        try await allowingInserts(other)
        // The same operation goes through once the disk accepts it, with the next number.
        try store.apply(.addRoom(home: home, id: room, name: "Dingo Den"))
        #expect(store.lastOperationSequence == sequence + 1)
        try await store.close()
        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.graph.home(withID: home)?.rooms.contains { $0.id == room } == true)
    }

    @Test func deviceKeyIsPrivateAndKept() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let path = fixture.folder + "/device.key"
        try await HomeStore(folder: fixture.folder).close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(key.count == 32)
        try await HomeStore(folder: fixture.folder).close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == key)
    }

    @Test func databaseFilesHoldNoReadableName() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 20)
        // Snapshots and the log both, with the WAL still present while open and after close.
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: 25)
        for operation in operations { try store.apply(operation) }
        try expectNoNames(in: fixture.rawBytes())
        try await store.close()
        try expectNoNames(in: fixture.rawBytes())
        #expect(try fixture.rawBytes().count > 10_000)
    }

    private func expectNoNames(in bytes: Data) {
        for name in StoreFixture.secretNames {
            #expect(bytes.range(of: Data(name.utf8)) == nil, "\(name) is readable")
            #expect(bytes.range(of: Data(name.lowercased().utf8)) == nil, "\(name) is readable")
            #expect(bytes.range(of: name.data(using: .utf16LittleEndian) ?? Data()) == nil, "\(name) is readable")
        }
    }

    @Test func wrongKeyFailsWithATypedError() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 2)
        let store = try HomeStore(folder: fixture.folder)
        for operation in operations { try store.apply(operation) }
        try await store.close(snapshot: false)
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: fixture.folder + "/device.key"))
        #expect(throws: HomeStoreError.sealFailed(table: "operation", sequence: 1)) {
            try HomeStore(folder: fixture.folder)
        }
        try Data(repeating: 7, count: 31).write(to: URL(fileURLWithPath: fixture.folder + "/device.key"))
        #expect(throws: HomeStoreError.invalidDeviceKey(path: fixture.folder + "/device.key")) {
            try HomeStore(folder: fixture.folder)
        }
    }

    @Test func tamperedOrSwappedRowsFail() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 2)
        let store = try HomeStore(folder: fixture.folder, snapshotInterval: 100)
        for operation in operations { try store.apply(operation) }
        try await store.close(snapshot: false)
        let path = fixture.folder + "/home.sqlite"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        // One byte added to an operation row.
        var database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "UPDATE operation SET payload = CAST(payload AS BLOB) || x'00' WHERE sequence = 12")
        }
        try database.close()
        #expect(throws: HomeStoreError.sealFailed(table: "operation", sequence: 12)) {
            try HomeStore(folder: fixture.folder, snapshotInterval: 100)
        }

        // Two rows swapped: each opens only in its own place.
        try original.write(to: URL(fileURLWithPath: path))
        database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "UPDATE operation SET sequence = -1 WHERE sequence = 12")
            try db.execute(sql: "UPDATE operation SET sequence = 12 WHERE sequence = 13")
            try db.execute(sql: "UPDATE operation SET sequence = 13 WHERE sequence = -1")
        }
        try database.close()
        #expect(throws: HomeStoreError.sealFailed(table: "operation", sequence: 12)) {
            try HomeStore(folder: fixture.folder, snapshotInterval: 100)
        }

        // A deleted row leaves a hole that is noticed.
        try original.write(to: URL(fileURLWithPath: path))
        database = try DatabaseQueue(path: path)
        try await database.write { db in try db.execute(sql: "DELETE FROM operation WHERE sequence = 12") }
        try database.close()
        #expect(throws: HomeStoreError.missingOperation(expected: 12, found: 13)) {
            try HomeStore(folder: fixture.folder, snapshotInterval: 100)
        }
    }

    @Test func newerSchemaIsRefused() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (store, _) = try fixture.storeWithOneLampHome()
        try await store.close()
        let path = fixture.folder + "/home.sqlite"
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try database.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: HomeStoreError.newerSchema) { try HomeStore(folder: fixture.folder) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func closedStoreRefusesWork() async throws {
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let (_, operations) = fixture.homeOperations(lamps: 0)
        let store = try HomeStore(folder: fixture.folder)
        try await store.close()
        await #expect(throws: HomeStoreError.closed) { try store.apply(operations[0]) }
    }
}

/// A second connection to the store's database in `folder` with a trigger that refuses every insert into
/// `operation` (those matching `condition` when one is given), as a full disk would; undo with `allowingInserts`.
private func refusingInserts(in folder: String, when condition: String? = nil) async throws -> DatabaseQueue {
    let other = try DatabaseQueue(path: folder + "/home.sqlite")
    let when = condition.map { " WHEN \($0)" } ?? ""
    try await other.write { db in
        try db.execute(
            sql: "CREATE TRIGGER refuse BEFORE INSERT ON operation\(when) BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    }
    return other
}

/// Drops the trigger `refusingInserts` made and closes its connection.
private func allowingInserts(_ other: DatabaseQueue) async throws {
    try await other.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
    try other.close()
}
