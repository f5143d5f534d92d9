import Foundation
import GRDB
import HomeGraph
import Testing

@testable import HomeStore

/// Stores written before the naming rules tightened (issue 20): they hold names new writes may no longer use.
@Suite struct OldNameTests {
    /// Appends `operations` to the store's log as an older Hearth wrote them: sealed rows, no checks.
    static func appendUnchecked(_ operations: [HomeOperation], toStoreIn folder: String) throws {
        let key = try DeviceKey.loadOrCreate(atPath: folder + "/device.key")
        let database = try DatabaseQueue(path: folder + "/home.sqlite")
        try database.write { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM operation") ?? 0
            let snapshot = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM snapshot") ?? 0
            var sequence = max(last, snapshot)
            for operation in operations {
                sequence += 1
                let sealed = try key.seal(JSONEncoder().encode(operation), table: "operation", sequence: sequence)
                try db.execute(sql: OperationRecord.insertSQL, arguments: [sequence, sealed])
            }
        }
        try database.close()
    }

    @Test func aStoreHoldingNamesRefusedTodayOpensAndKeepsWorking() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let home = UUID()
        let bell = UUID()
        let dup = UUID()
        let zeroWidthDup = UUID()
        let long = String(repeating: "L", count: 200_000)
        let store = try HomeStore(folder: fixture.folder)
        try store.apply(.addHome(id: home, name: "Old Home", roomForEntireHomeID: UUID()))
        try await store.close(snapshot: false)
        try Self.appendUnchecked(
            [
                .addRoom(home: home, id: bell, name: "Bell\u{7}\u{1B}[31m Room"),
                .addRoom(home: home, id: dup, name: "Dup Room"),
                .addRoom(home: home, id: zeroWidthDup, name: "Dup\u{200B} Room"),
                .addRoom(home: home, id: UUID(), name: long),
                .addZone(home: home, id: UUID(), name: "\u{202E}enoZ"),
                .addRoom(home: home, id: UUID(), name: "\u{200D}\u{200C}\u{FEFF}"),
                .renameHome(home, name: "Old\u{0}Home"),
            ],
            toStoreIn: fixture.folder
        )

        let reopened = try HomeStore(folder: fixture.folder)
        #expect(reopened.lastOperationSequence == 8)
        let names = try #require(reopened.graph.home(withID: home)).rooms.map(\.name)
        #expect(
            names == ["Bell\u{7}\u{1B}[31m Room", "Dup Room", "Dup\u{200B} Room", long, "\u{200D}\u{200C}\u{FEFF}"]
        )
        #expect(reopened.graph.home(withID: home)?.name == "Old\u{0}Home")

        // New writes are checked, against the old names too; the old objects can be renamed to good names.
        #expect(throws: HomeGraphError.nameTaken(name: "dup room", existing: .init(.room, dup))) {
            try reopened.apply(.addRoom(home: home, id: UUID(), name: "dup room"))
        }
        #expect(throws: HomeGraphError.invalidName("Bell\u{7}", .controlCharacter(7))) {
            try reopened.apply(.renameRoom(home: home, room: bell, name: "Bell\u{7}"))
        }
        try reopened.apply(.renameRoom(home: home, room: bell, name: "Bell Room"))
        try reopened.apply(.addRoom(home: home, id: UUID(), name: "Attic"))
        let graph = reopened.graph
        try await reopened.close()

        // Closing took a snapshot holding the old names; it opens too.
        let again = try HomeStore(folder: fixture.folder)
        #expect(again.graph == graph)
        #expect(again.graph.home(withID: home)?.rooms.first?.name == "Bell Room")
        try await again.close()
    }
}
