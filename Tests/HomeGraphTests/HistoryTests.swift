import Foundation
import HAPTypes
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

    @Test func eachChangeSaysWhoMadeItAndWhen() throws {
        var fixture = try Fixture()
        let ada = UUID()
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let seen = fixture.graph.lastSequence(ofHome: fixture.homeID)
        let made = try fixture.graph.apply(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "Kitchen"),
            by: .person(ada),
            at: at
        )
        #expect(made.map(\.by) == [.person(ada)])
        #expect(made.map(\.at) == [at])
        // The history keeps them; an operation applied without them has neither.
        let lamp = fixture.makeLamp("Lamp")
        let unstamped = try fixture.graph.apply(.addAccessory(home: fixture.homeID, accessory: lamp))
        #expect(try fixture.graph.changes(after: seen, inHome: fixture.homeID) == .events(made + unstamped))
        #expect(unstamped.allSatisfy { $0.by == nil && $0.at == nil })

        // Who, when no caller is named: accessories report, automations write and keep state, the hub does the rest.
        let value = HAPValue.bool(true)
        #expect(
            ChangeAuthor(reporting: .updateCharacteristicValue(home: ada, characteristic: ada, value: value))
                == .accessory
        )
        #expect(ChangeAuthor(reporting: .setReachability(home: ada, accessory: ada, isReachable: false)) == .accessory)
        #expect(
            ChangeAuthor(reporting: .writeCharacteristicValue(home: ada, characteristic: ada, value: value))
                == .automation
        )
        #expect(ChangeAuthor(reporting: .renameHome(ada, name: "Home")) == .hub)
    }

    @Test func theAuthorIsPlainJSONAndEventsWrittenBeforeItStillRead() throws {
        let ada = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(ChangeAuthor.person(ada)), as: UTF8.self)
                == #"{"kind":"person","userID":"0F8FAD5B-D9CB-469F-A165-70867728950E"}"#
        )
        #expect(String(decoding: try encoder.encode(ChangeAuthor.accessory), as: UTF8.self) == #"{"kind":"accessory"}"#)
        for author in [ChangeAuthor.person(ada), .automation, .accessory, .hub] {
            #expect(try JSONDecoder().decode(ChangeAuthor.self, from: encoder.encode(author)) == author)
        }
        // A kind a newer hub may add reads as the hub's; a person without an id is refused.
        #expect(try JSONDecoder().decode(ChangeAuthor.self, from: Data(#"{"kind":"robot"}"#.utf8)) == .hub)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ChangeAuthor.self, from: Data(#"{"kind":"person"}"#.utf8))
        }

        // An event and a logged operation from before: neither author nor time.
        let event = HomeEvent(homeID: ada, sequence: 3, change: .homeRenamed(old: "A", new: "B"))
        var json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(event)) as? [String: Any])
        #expect(json["by"] == nil && json["at"] == nil)
        json["by"] = ["kind": "hub"]
        let stamped = try JSONDecoder().decode(HomeEvent.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(stamped.by == .hub)
        let bare = HomeOperation.renameHome(ada, name: "Home")
        let old = try JSONDecoder().decode(LoggedOperation.self, from: encoder.encode(bare))
        #expect(old == LoggedOperation(bare, by: nil, at: nil))
        let logged = LoggedOperation(bare, by: .person(ada), at: Date(timeIntervalSince1970: 5))
        #expect(try JSONDecoder().decode(LoggedOperation.self, from: encoder.encode(logged)) == logged)
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
