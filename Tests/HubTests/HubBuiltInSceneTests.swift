import Foundation
import HomeGraph
import HomeStore
import Testing

@testable import Hub

/// The hub gives every home its built-in scenes: new homes when made, older homes when the hub opens their store.
@Suite struct HubBuiltInSceneTests {
    let owner = UUID()

    @Test func aNewHomeHasItsBuiltInScenesAndTheyCannotBeRemoved() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hub = try await Hub(configuration: testConfiguration(folder: folder))
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        #expect(home.actionSets.map(\.name) == ["Wake Up", "Leave Home", "Arrive Home", "Sleep"])
        #expect(home.actionSets.map(\.kind) == ActionSetKind.builtIn)
        let wakeUp = try #require(home.actionSet(ofKind: .wakeUp))
        await #expect(throws: HubError.rejected(.builtInActionSetNotRemovable(.wakeUp, name: "Wake Up", id: wakeUp.id)))
        {
            try await hub.perform(.removeActionSet(home: home.id, actionSet: wakeUp.id), as: .user(owner))
        }
        let graph = hub.graph
        await hub.stop()

        // Reopened, the home's scenes are the same, ids included, and nothing is added.
        let reopened = try await Hub(configuration: testConfiguration(folder: folder))
        #expect(reopened.graph == graph)
        await reopened.stop()
    }

    @Test func theHubAddsTheBuiltInScenesAnOlderHomeLacksWhenItOpens() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A store as an older hub left it: a home made without built-in scenes, which added a Wake Up scene and a
        // scene of its own called "Sleep".
        let (homeID, wakeUp, mySleep) = (UUID(), UUID(), UUID())
        let store = try HomeStore(folder: folder)
        for operation: HomeOperation in [
            .addHome(id: homeID, name: "Old Home", roomForEntireHomeID: UUID()),
            .addUser(home: homeID, id: owner, name: "Ada", role: .owner),
            .addActionSet(home: homeID, id: wakeUp, name: "Good Morning", kind: .wakeUp),
            .addActionSet(home: homeID, id: mySleep, name: "Sleep", kind: .userDefined),
        ] {
            var graph = store.graph
            try graph.apply(operation)
            try store.append([operation], resulting: graph)
        }
        try await store.close()

        let hub = try await Hub(configuration: testConfiguration(folder: folder))
        let home = try #require(hub.graph.home(withID: homeID))
        #expect(
            home.actionSets.map { "\($0.name)/\($0.kind)" }
                == [
                    "Good Morning/wakeUp", "Sleep/userDefined", "Leave Home/homeDeparture",
                    "Arrive Home/homeArrival", "Sleep 2/sleep",
                ]
        )
        #expect(home.actionSet(ofKind: .wakeUp)?.id == wakeUp, "the home's own Wake Up scene is kept")
        let graph = hub.graph
        await hub.stop()

        // The additions were committed: the next start finds them and adds nothing more.
        let again = try await Hub(configuration: testConfiguration(folder: folder))
        #expect(again.graph == graph)
        await again.stop()
    }
}
