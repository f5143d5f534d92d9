import Foundation
import TestFixtures
import Testing

@testable import HomeGraph

/// The four built-in scenes (Wake Up, Leave Home, Arrive Home, Sleep) every new home has.
@Suite struct BuiltInSceneTests {
    /// A graph with one home made with its built-in scenes, and their ids.
    static func homeWithBuiltIns() throws -> (graph: HomeGraph, home: UUID, ids: BuiltInActionSetIDs) {
        var generator = SeededIDGenerator(seed: 17)
        let home = generator.makeID()
        let builtIns = BuiltInActionSetIDs(using: &generator)
        var graph = HomeGraph()
        try graph.apply(
            .addHome(id: home, name: "Maple Street", roomForEntireHomeID: UUID(), builtInActionSetIDs: builtIns)
        )
        return (graph, home, builtIns)
    }

    @Test func aNewHomeHasTheFourBuiltInScenesWithTheIDsItsOperationCarries() throws {
        var generator = SeededIDGenerator(seed: 3)
        let (home, room) = (generator.makeID(), generator.makeID())
        let builtIns = BuiltInActionSetIDs(using: &generator)
        let operation = HomeOperation.addHome(
            id: home,
            name: "Maple Street",
            roomForEntireHomeID: room,
            builtInActionSetIDs: builtIns
        )
        var graph = HomeGraph()
        let events = try graph.apply(operation)
        let made = try #require(graph.home(withID: home)).actionSets
        #expect(made.map(\.name) == ["Wake Up", "Leave Home", "Arrive Home", "Sleep"])
        #expect(made.map(\.kind) == [.wakeUp, .homeDeparture, .homeArrival, .sleep])
        #expect(made.map(\.id) == [builtIns.wakeUp, builtIns.homeDeparture, builtIns.homeArrival, builtIns.sleep])
        #expect(made.allSatisfy { $0.actions.isEmpty })
        guard case .homeAdded(let added) = events.first?.change else {
            Issue.record("the first change is not homeAdded: \(events)")
            return
        }
        #expect(added.actionSets == made, "a client learns of the built-in scenes with the home")
        for kind in ActionSetKind.builtIn {
            #expect(graph.home(withID: home)?.actionSet(ofKind: kind)?.kind == kind)
        }

        // The operation round-trips through JSON, so a replayed log makes the same scenes with the same ids.
        let decoded = try JSONDecoder().decode(HomeOperation.self, from: JSONEncoder().encode(operation))
        #expect(decoded == operation)
        var replayed = HomeGraph()
        try replayed.replay(decoded)
        #expect(replayed == graph)
    }

    @Test func anOldAddHomeWithoutBuiltInIDsDecodesAndMakesAHomeWithoutThem() throws {
        let (home, room) = (UUID(), UUID())
        let old = Data(
            #"{"addHome":{"id":"\#(home)","name":"Old Home","roomForEntireHomeID":"\#(room)","timeZoneIdentifier":"UTC"}}"#
                .utf8
        )
        let operation = try JSONDecoder().decode(HomeOperation.self, from: old)
        #expect(operation == .addHome(id: home, name: "Old Home", roomForEntireHomeID: room))
        var graph = HomeGraph()
        try graph.replay(operation)
        #expect(graph.home(withID: home)?.actionSets == [])
        // As such a home's log did, it may add a built-in kind itself, and remove it again.
        let wakeUp = UUID()
        try graph.replay(.addActionSet(home: home, id: wakeUp, name: "Good Morning", kind: .wakeUp))
        try graph.replay(.removeActionSet(home: home, actionSet: wakeUp))
        try graph.replay(.addActionSet(home: home, id: wakeUp, name: "Good Morning", kind: .wakeUp))
        #expect(graph.home(withID: home)?.actionSets.map(\.name) == ["Good Morning"])
    }

    @Test func builtInIDsMustBeNewAndDistinct() throws {
        var (graph, _, builtIns) = try Self.homeWithBuiltIns()
        let before = graph
        let (home, room) = (UUID(), UUID())
        #expect(throws: HomeGraphError.idTaken(ObjectReference(.actionSet, builtIns.wakeUp))) {
            try graph.apply(
                .addHome(id: home, name: "Cabin", roomForEntireHomeID: room, builtInActionSetIDs: builtIns)
            )
        }
        var twice = BuiltInActionSetIDs.random()
        twice.sleep = twice.wakeUp
        #expect(throws: HomeGraphError.idTaken(ObjectReference(.actionSet, twice.wakeUp))) {
            try graph.apply(.addHome(id: home, name: "Cabin", roomForEntireHomeID: room, builtInActionSetIDs: twice))
        }
        var roomToo = BuiltInActionSetIDs.random()
        roomToo.homeArrival = room
        #expect(throws: HomeGraphError.idTaken(ObjectReference(.room, room))) {
            try graph.apply(
                .addHome(id: home, name: "Cabin", roomForEntireHomeID: room, builtInActionSetIDs: roomToo)
            )
        }
        #expect(graph == before)
    }

    @Test func builtInScenesAreRenamedAndEditedButNeverRemoved() throws {
        var (graph, home, builtIns) = try Self.homeWithBuiltIns()
        let lamp = Accessory.testLamp(
            named: "Desk Lamp",
            roomID: try #require(graph.home(withID: home)).roomForEntireHome.id
        )
        try graph.apply(.addAccessory(home: home, accessory: lamp))
        try graph.apply(.renameActionSet(home: home, actionSet: builtIns.wakeUp, name: "Good Morning"))
        let on = lamp.services[0].characteristics[0]
        let actions = [Action(characteristicID: on.id, targetValue: .bool(true))]
        try graph.apply(.setActions(home: home, actionSet: builtIns.wakeUp, actions: actions))
        let trigger = Trigger(id: UUID(), name: "Dawn", actionSetIDs: [builtIns.wakeUp])
        try graph.apply(.addTrigger(home: home, trigger: trigger))

        let before = graph
        #expect(
            throws: HomeGraphError.builtInActionSetNotRemovable(.wakeUp, name: "Good Morning", id: builtIns.wakeUp)
        ) {
            try graph.apply(.removeActionSet(home: home, actionSet: builtIns.wakeUp))
        }
        #expect(throws: HomeGraphError.builtInActionSetExists(.sleep, existing: builtIns.sleep)) {
            try graph.apply(.addActionSet(home: home, id: UUID(), name: "Night", kind: .sleep))
        }
        #expect(graph == before, "a refused removal or addition changes nothing")
        let wakeUp = try #require(graph.home(withID: home)?.actionSet(ofKind: .wakeUp))
        #expect(wakeUp.name == "Good Morning" && wakeUp.actions == actions)
        #expect(graph.home(withID: home)?.triggers.first?.actionSetIDs == [builtIns.wakeUp])

        // Scenes made by people are still removed as before.
        let evening = UUID()
        try graph.apply(.addActionSet(home: home, id: evening, name: "Evening"))
        try graph.apply(.removeActionSet(home: home, actionSet: evening))
        #expect(graph.home(withID: home)?.actionSets.count == 4)
    }

    @Test func anOlderHomeGetsTheMissingBuiltInScenesUnderFreeNames() throws {
        let (home, room) = (UUID(), UUID())
        var graph = HomeGraph()
        try graph.apply(.addHome(id: home, name: "Old Home", roomForEntireHomeID: room))
        let wakeUp = UUID()
        try graph.apply(.addActionSet(home: home, id: wakeUp, name: "Rise", kind: .wakeUp))
        try graph.apply(.addActionSet(home: home, id: UUID(), name: "Sleep", kind: .userDefined))
        try graph.apply(.addActionSet(home: home, id: UUID(), name: "Sleep 2", kind: .userDefined))
        try graph.apply(.addRoom(home: home, id: UUID(), name: "Arrive Home"))

        var ids = SeededIDGenerator(seed: 5)
        let operations = try #require(graph.home(withID: home)).addingMissingBuiltInActionSets(ids: &ids)
        var expected = SeededIDGenerator(seed: 5)
        #expect(
            operations == [
                .addActionSet(home: home, id: expected.makeID(), name: "Leave Home", kind: .homeDeparture),
                .addActionSet(home: home, id: expected.makeID(), name: "Arrive Home 2", kind: .homeArrival),
                .addActionSet(home: home, id: expected.makeID(), name: "Sleep 3", kind: .sleep),
            ]
        )
        for operation in operations { try graph.apply(operation) }
        let after = try #require(graph.home(withID: home))
        #expect(after.actionSet(ofKind: .wakeUp)?.id == wakeUp, "the scene the home had is kept")
        #expect(after.addingMissingBuiltInActionSets(ids: &ids).isEmpty, "nothing left to add")
    }
}
