import Foundation
import GRDB
import HomeGraph
import TestSupport
import Testing

@testable import HomeStore

/// `hearth` against a hub whose store an older Hearth wrote with names that drive a terminal (issue 20).
@Suite(.serialized) struct HostileNameCommandTests {
    typealias DemoHub = HomeCommandTests.DemoHub

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

    /// The bytes that would drive a terminal: C0 controls but new line and tab, DEL, C1, bidirectional controls.
    static func unsafeScalars(in text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { value in
            (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }
    }

    @Test func namesAnOldStoreHoldsArePrintedEscapedAndCutToTheColumn() throws {
        var hub = try DemoHub()
        let state = hub.state
        defer { hub.stop() }
        let config = ["--config", hub.config]
        var result = try HomeCommandTests.hearth(["home", "list", "--json"] + config)
        let homes = try result.json()["homes"] as? [[String: Any]] ?? []
        let homeID = try #require(UUID(uuidString: homes.first?["id"] as? String ?? ""), "\(result)")
        _ = hub.child.terminate()

        let bell = "Bell\u{7}\u{1B}[31m Red"
        let long = String(repeating: "W", count: 200)
        try Self.appendUnchecked(
            [
                .addRoom(home: homeID, id: UUID(), name: bell),
                .addRoom(home: homeID, id: UUID(), name: long),
                .addRoom(home: homeID, id: UUID(), name: "\u{202E}live\u{9B}2J"),
            ],
            toStoreIn: state
        )
        hub = try DemoHub(state: state)

        result = try HomeCommandTests.hearth(["room", "list"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(Self.unsafeScalars(in: result.output).isEmpty, "\(result.output.debugDescription)")
        #expect(result.output.contains(#"Bell\u{7}\u{1B}[31m Red"#), "\(result)")
        #expect(result.output.contains(#"\u{202E}live\u{9B}2J"#), "\(result)")
        // The long name is cut to the column width; no line grows with it.
        #expect(result.output.contains(String(repeating: "W", count: 39) + "…"), "\(result)")
        #expect(!result.output.contains(String(repeating: "W", count: 40)), "\(result)")
        let widths = result.output.split(separator: "\n").map(\.count)
        #expect(widths.allSatisfy { $0 < 100 }, "\(widths)")

        // JSON still carries the names exactly, with every unsafe character escaped.
        result = try HomeCommandTests.hearth(["room", "list", "--json"] + config)
        #expect(Self.unsafeScalars(in: result.output).isEmpty, "\(result.output.debugDescription)")
        let rooms = try result.json()["rooms"] as? [[String: Any]] ?? []
        let names = rooms.compactMap { $0["name"] as? String }
        #expect(names.contains(bell) && names.contains(long) && names.contains("\u{202E}live\u{9B}2J"), "\(names)")

        // A new name like these is refused with a sentence, itself printed escaped.
        result = try HomeCommandTests.hearth(["room", "add", "Bell\u{7}"] + config)
        #expect(result.status == 2, "\(result)")
        #expect(result.errors == "error: A name cannot contain control characters (found U+0007).\n", "\(result)")
        result = try HomeCommandTests.hearth(["room", "rename", bell, "Bell \u{202E}Red"] + config)
        #expect(result.status == 2, "\(result)")
        #expect(Self.unsafeScalars(in: result.errors).isEmpty, "\(result.errors.debugDescription)")
        result = try HomeCommandTests.hearth(["room", "rename", bell, "Bell Room"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(Self.unsafeScalars(in: result.output).isEmpty, "\(result.output.debugDescription)")
    }
}
