import Foundation
import Testing

@testable import HomeGraph

@Suite struct HistoryTests {
    @Test func sequenceNumbersStrictlyIncreasePerHome() throws {
        var fixture = try Fixture()
        let other = fixture.ids.makeID()
        try fixture.apply(.addHome(id: other, name: "Cabin", roomForEntireHomeID: fixture.ids.makeID()))
        var events = try fixture.apply(.addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "Kitchen"))
        events += try fixture.apply(.addRoom(home: other, id: fixture.ids.makeID(), name: "Kitchen"))
        events += try fixture.apply(.setPrimaryHome(other))
        events += try fixture.apply(.addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "Hall"))
        // Maple Street: added, primary, Kitchen, stopped being primary, Hall. Cabin: added, Kitchen, primary.
        #expect(events.filter { $0.homeID == fixture.homeID }.map(\.sequence) == [3, 4, 5])
        #expect(events.filter { $0.homeID == other }.map(\.sequence) == [2, 3])
        #expect(fixture.graph.lastSequence(ofHome: fixture.homeID) == 5)
        #expect(fixture.graph.lastSequence(ofHome: other) == 3)
    }

    @Test func changesAfterASequenceAreExactlyTheMissedOnes() throws {
        var fixture = try Fixture()
        let seen = fixture.graph.lastSequence(ofHome: fixture.homeID)
        var missed: [HomeEvent] = []
        let kitchen = fixture.ids.makeID()
        missed += try fixture.apply(.addRoom(home: fixture.homeID, id: kitchen, name: "Kitchen"))
        let lamp = fixture.makeLamp("Lamp")
        missed += try fixture.apply(.addAccessory(home: fixture.homeID, accessory: lamp))
        missed += try fixture.apply(.removeRoom(home: fixture.homeID, room: kitchen))
        #expect(try fixture.graph.changes(after: seen, inHome: fixture.homeID) == .events(missed))
        #expect(
            try fixture.graph.changes(after: seen + 1, inHome: fixture.homeID) == .events(Array(missed.dropFirst()))
        )
        let now = fixture.graph.lastSequence(ofHome: fixture.homeID)
        #expect(try fixture.graph.changes(after: now, inHome: fixture.homeID) == .events([]))
        #expect(try fixture.graph.changes(after: 0, inHome: fixture.homeID).events?.first?.sequence == 1)
    }

    @Test func aClientTooFarBehindIsToldToReload() throws {
        var fixture = try Fixture()
        fixture.graph = HomeGraph(historyLimit: 4)
        let home = fixture.homeID
        try fixture.apply(.addHome(id: home, name: "Maple Street", roomForEntireHomeID: fixture.entireHomeRoomID))
        let lamp = try fixture.addLamp("Lamp")
        for brightness in 1...20 {
            try fixture.apply(
                .updateCharacteristicValue(
                    home: home,
                    characteristic: lamp.brightness.id,
                    value: .int(Int64(brightness))
                )
            )
        }
        let current = fixture.graph.lastSequence(ofHome: home)
        #expect(current == 23)
        #expect(try fixture.graph.changes(after: 1, inHome: home) == .reloadRequired(currentSequence: current))
        // At least the last `historyLimit` changes are always kept.
        let recent = try #require(try fixture.graph.changes(after: current - 4, inHome: home).events)
        #expect(recent.map(\.sequence) == Array((current - 3)...current))
        #expect((fixture.graph.history[home]?.count ?? 0) < 8)
        // A sequence from the future (a hub that lost its state) also means reload.
        #expect(
            try fixture.graph.changes(after: current + 5, inHome: home) == .reloadRequired(currentSequence: current)
        )
    }

    @Test func theGraphRoundTripsThroughJSON() throws {
        var populated = try NotFoundTests.Populated()
        try populated.fixture.apply(
            .setLocation(home: populated.fixture.homeID, location: Location(latitude: 1.5, longitude: -2))
        )
        let data = try JSONEncoder().encode(populated.fixture.graph)
        #expect(try JSONDecoder().decode(HomeGraph.self, from: data) == populated.fixture.graph)
    }
}

extension ChangeHistory {
    /// The events, or `nil` when the client must reload.
    var events: [HomeEvent]? {
        if case .events(let events) = self { return events }
        return nil
    }
}
