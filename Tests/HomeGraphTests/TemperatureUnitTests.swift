import Foundation
import Testing

@testable import HomeGraph

/// A home's temperature unit: the unit its people say and read temperatures in; values stay in Celsius.
@Suite struct TemperatureUnitTests {
    @Test func settingTheUnitChangesTheHomeOnceAndReachesAMirror() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        var mirror = HomeMirror()
        mirror.load(try fixture.home, sequence: fixture.graph.lastSequence(ofHome: home))
        #expect(try fixture.home.temperatureUnit == nil && fixture.home.displayTemperatureUnit == .celsius)

        let events = try fixture.apply(.setTemperatureUnit(home: home, unit: .fahrenheit))
        #expect(events.map(\.change) == [.homeTemperatureUnitChanged(.fahrenheit)])
        #expect(try fixture.home.temperatureUnit == .fahrenheit && fixture.home.displayTemperatureUnit == .fahrenheit)
        #expect(try fixture.changes(.setTemperatureUnit(home: home, unit: .fahrenheit)).isEmpty, "no change, no event")
        for event in events { #expect(mirror.apply(event) == .applied) }
        #expect(mirror.homes == fixture.graph.homes)

        let unknown = UUID()
        fixture.expectFailure(.setTemperatureUnit(home: unknown, unit: .celsius), .notFound(.home, unknown))
    }

    @Test func theOperationAndTheHomeSurviveJSON() throws {
        var fixture = try Fixture()
        let operation = HomeOperation.setTemperatureUnit(home: fixture.homeID, unit: .fahrenheit)
        let decoded = try JSONDecoder().decode(HomeOperation.self, from: try JSONEncoder().encode(operation))
        #expect(decoded == operation)
        try fixture.apply(operation)
        let graph = try JSONDecoder().decode(HomeGraph.self, from: try JSONEncoder().encode(fixture.graph))
        #expect(graph == fixture.graph)
        // A replayed log sets it again.
        var replayed = try Fixture()
        _ = try replayed.graph.replay(decoded)
        #expect(try replayed.home.temperatureUnit == .fahrenheit)
    }

    @Test func anUnknownUnitIsRefusedWithTheAllowedValues() {
        #expect {
            try JSONDecoder().decode(TemperatureUnit.self, from: Data(#""kelvin""#.utf8))
        } throws: { error in
            guard case .dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.debugDescription == "it must be 'celsius' or 'fahrenheit'"
        }
        #expect(throws: Never.self) { try JSONDecoder().decode(TemperatureUnit.self, from: Data(#""celsius""#.utf8)) }
    }
}
