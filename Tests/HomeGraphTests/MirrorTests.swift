import Foundation
import TestSupport
import Testing

@testable import HomeGraph

/// An app's copy of the home, kept only from change events, must equal the hub's graph after every step.
@Suite struct MirrorTests {
    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func aMirrorFedEveryEventEqualsTheGraph(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var maker = OperationMaker(ids: SeededIDGenerator(seed: seed))
        var graph = HomeGraph(historyLimit: 50)
        var mirror = HomeMirror()
        var applied = 0
        for step in 0..<1000 {
            let operation = maker.make(for: graph, using: &random)
            guard let events = try? graph.apply(operation) else { continue }
            for event in events {
                #expect(mirror.apply(event) == .applied, "seed \(seed) step \(step): \(event.change) not applied")
                applied += 1
            }
            #expect(mirror.homes == graph.homes, "seed \(seed) step \(step): the mirror differs after \(operation)")
        }
        #expect(applied > 150, "seed \(seed): too few events to mean much")
    }

    @Test func aGapIsRefusedAndAReplayIsIgnored() throws {
        var fixture = try Fixture()
        var mirror = HomeMirror()
        mirror.load(try fixture.home, sequence: fixture.graph.lastSequence(ofHome: fixture.homeID))
        let first = try fixture.apply(.addRoom(home: fixture.homeID, id: UUID(), name: "Hall"))
        let second = try fixture.apply(.addRoom(home: fixture.homeID, id: UUID(), name: "Den"))
        let before = mirror
        #expect(mirror.apply(second[0]) == .gap(lastSeen: first[0].sequence - 1))
        #expect(mirror == before)
        #expect(mirror.apply(first[0]) == .applied)
        #expect(mirror.apply(first[0]) == .alreadySeen)
        #expect(mirror.apply(second[0]) == .applied)
        #expect(mirror.homes == fixture.graph.homes)
    }
}

/// JSON has one kind of number: a whole-number float must come back as a float wherever its format is known.
@Suite struct ValueFormatTests {
    @Test func wholeFloatsSurviveAJSONRoundTripOfTheGraphAndTheMirror() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        var mirror = HomeMirror()
        mirror.load(try fixture.home, sequence: fixture.graph.lastSequence(ofHome: fixture.homeID))
        let events = try fixture.apply(
            .updateCharacteristicValue(home: fixture.homeID, characteristic: lamp.temperature.id, value: .float(23))
        )
        let decoded = try JSONDecoder().decode(HomeGraph.self, from: JSONEncoder().encode(fixture.graph))
        #expect(decoded == fixture.graph)
        let event = try JSONDecoder().decode(HomeEvent.self, from: JSONEncoder().encode(events[0]))
        #expect(event.change != events[0].change, "the event alone reads 23 as an int")
        #expect(mirror.apply(event) == .applied)
        #expect(mirror.homes == fixture.graph.homes)
    }
}
