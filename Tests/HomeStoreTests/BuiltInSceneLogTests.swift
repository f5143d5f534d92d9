import Foundation
import GRDB
import HomeGraph
import Testing

@testable import HomeStore

/// Logs written before homes had built-in scenes: they open unchanged, and new homes replay with the same scenes.
@Suite struct BuiltInSceneLogTests {
    /// Appends operations as raw JSON, byte for byte as an older Hearth wrote them: sealed rows, no checks.
    static func appendRaw(_ operations: [String], toStoreIn folder: String) throws {
        let key = try DeviceKey.loadOrCreate(atPath: folder + "/device.key")
        let database = try DatabaseQueue(path: folder + "/home.sqlite")
        try database.write { db in
            var sequence = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM operation") ?? 0
            for operation in operations {
                sequence += 1
                let sealed = try key.seal(Data(operation.utf8), table: "operation", sequence: sequence)
                try db.execute(sql: OperationRecord.insertSQL, arguments: [sequence, sealed])
            }
        }
        try database.close()
    }

    @Test func aHomeMadeBeforeBuiltInScenesThatAddedItsOwnWakeUpOpensUnchanged() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let (home, room, wakeUp, sleep) = (UUID(), UUID(), UUID(), UUID())
        // A store with a log; its first operation is written below as the older Hearth wrote it.
        let store = try HomeStore(folder: fixture.folder)
        try await store.close(snapshot: false)
        try Self.appendRaw(
            [
                #"{"addHome":{"id":"\#(home)","name":"Old Home","roomForEntireHomeID":"\#(room)","timeZoneIdentifier":"UTC"}}"#,
                #"{"addActionSet":{"home":"\#(home)","id":"\#(wakeUp)","name":"Good Morning","kind":"wakeUp","actions":[]}}"#,
                #"{"addActionSet":{"home":"\#(home)","id":"\#(sleep)","name":"Nap","kind":"sleep","actions":[]}}"#,
                #"{"removeActionSet":{"home":"\#(home)","actionSet":"\#(sleep)"}}"#,
            ],
            toStoreIn: fixture.folder
        )
        let reopened = try HomeStore(folder: fixture.folder)
        let actionSets = try #require(reopened.graph.home(withID: home)).actionSets
        #expect(actionSets == [ActionSet(id: wakeUp, name: "Good Morning", kind: .wakeUp)])
        try await reopened.close()
    }

    @Test func aNewHomesBuiltInScenesReplayWithTheSameIDs() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let home = UUID()
        let builtIns = BuiltInActionSetIDs.random()
        let store = try HomeStore(folder: fixture.folder)
        try store.apply(
            .addHome(id: home, name: "New Home", roomForEntireHomeID: UUID(), builtInActionSetIDs: builtIns)
        )
        try store.apply(.renameActionSet(home: home, actionSet: builtIns.sleep, name: "Good Night"))
        let graph = store.graph
        try await store.close(snapshot: false)
        let replayed = try HomeStore(folder: fixture.folder)
        #expect(replayed.graph == graph)
        #expect(replayed.graph.home(withID: home)?.actionSets.map(\.id) == builtIns.byKind.map(\.id))
        try await replayed.close()
    }
}
