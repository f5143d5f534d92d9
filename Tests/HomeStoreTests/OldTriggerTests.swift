import Foundation
import GRDB
import HomeGraph
import Testing

@testable import HomeStore

/// Stores written before trigger definitions were typed: a trigger's `definition` was an opaque base64 blob.
@Suite struct OldTriggerTests {
    @Test func anOldFormTriggerOpensTurnedOffWithNoEventsAndSaysSo() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let home = UUID()
        let scene = UUID()
        let triggerID = UUID()
        let store = try HomeStore(folder: fixture.folder)
        try store.apply(.addHome(id: home, name: "Old Home", roomForEntireHomeID: UUID()))
        try store.apply(.addActionSet(home: home, id: scene, name: "Evening"))
        try await store.close(snapshot: false)

        // The row an older Hearth wrote: the trigger's fields of then, its definition a base64 blob.
        let old = """
            {"addTrigger": {"home": "\(home.uuidString)", "trigger": {"id": "\(triggerID.uuidString)",
             "name": "At Sunset", "isEnabled": true, "actionSetIDs": ["\(scene.uuidString)"], "definition": "AAECAw=="}}}
            """
        let key = try DeviceKey.loadOrCreate(atPath: fixture.folder + "/device.key")
        let database = try DatabaseQueue(path: fixture.folder + "/home.sqlite")
        try await database.write { db in
            let sequence = (try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM operation") ?? 0) + 1
            let sealed = try key.seal(Data(old.utf8), table: "operation", sequence: sequence)
            try db.execute(sql: OperationRecord.insertSQL, arguments: [sequence, sealed])
        }
        try database.close()

        let reopened = try HomeStore(folder: fixture.folder)
        let trigger = try #require(reopened.graph.home(withID: home)?.triggers.first)
        #expect(trigger.id == triggerID && trigger.name == "At Sunset" && trigger.actionSetIDs == [scene])
        #expect(!trigger.isEnabled)
        #expect(trigger.definition == TriggerDefinition() && trigger.definition.isEmpty)
        #expect(trigger.note == Trigger.migratedNote)
        // It stays off until it is given events; then it can be turned on, and the note goes.
        #expect(throws: HomeGraphError.self) {
            try reopened.apply(.enableTrigger(home: home, trigger: triggerID, isEnabled: true))
        }
        let dusk = TriggerDefinition(events: [.significantTime(sun: .sunset, offsetSeconds: 0)])
        try reopened.apply(.setTriggerDefinition(home: home, trigger: triggerID, definition: dusk))
        try reopened.apply(.enableTrigger(home: home, trigger: triggerID, isEnabled: true))
        let graph = reopened.graph
        #expect(graph.home(withID: home)?.triggers.first?.note == nil)
        try await reopened.close()

        // The snapshot written on close holds the typed trigger.
        let again = try HomeStore(folder: fixture.folder)
        #expect(again.graph == graph)
        #expect(again.graph.home(withID: home)?.triggers.first?.definition == dusk)
        try await again.close()
    }
}
