import Foundation
import HAP
import HAPTypes
import Testing

@testable import Simulator

@Suite struct IdentifierMapTests {
    private func bridge(_ names: [String], preset: Preset = .lightbulbDimmable) -> SimulatorDescription {
        SimulatorDescription(
            bridge: BridgeDescription(name: "Bridge"),
            accessories: names.map { AccessoryDescription(name: $0, preset: preset.rawValue) }
        )
    }

    private func ids(_ build: DatabaseBuild) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: build.accessories.map { ($0.name, $0.accessoryID) })
    }

    @Test func rebuildingWithTheSameMapChangesNothing() throws {
        let first = try bridge(["A", "B"]).makeDatabase(identifiers: IdentifierMap())
        #expect(first.didChange)
        let saved = try JSONEncoder().encode(first.identifiers)
        let restored = try JSONDecoder().decode(IdentifierMap.self, from: saved)
        let second = try bridge(["A", "B"]).makeDatabase(identifiers: restored)
        #expect(!second.didChange)
        #expect(second.database == first.database)
        #expect(second.identifiers == first.identifiers)
    }

    @Test func removingAnAccessoryKeepsTheOthersAndNeverReusesItsAid() throws {
        let first = try bridge(["A", "B", "C"]).makeDatabase(identifiers: IdentifierMap())
        #expect(ids(first) == ["Bridge": 1, "A": 2, "B": 3, "C": 4])
        let removed = try bridge(["A", "C"]).makeDatabase(identifiers: first.identifiers)
        #expect(removed.didChange)
        #expect(ids(removed) == ["Bridge": 1, "A": 2, "C": 4])
        #expect(removed.database.accessory(withID: 4) == first.database.accessory(withID: 4))
        let readded = try bridge(["A", "C", "B"]).makeDatabase(identifiers: removed.identifiers)
        #expect(ids(readded) == ["Bridge": 1, "A": 2, "C": 4, "B": 5])
    }

    @Test func insertingAndReorderingKeepIDs() throws {
        let first = try bridge(["A", "B"]).makeDatabase(identifiers: IdentifierMap())
        let edited = try bridge(["New", "B", "A"]).makeDatabase(identifiers: first.identifiers)
        #expect(ids(edited) == ["Bridge": 1, "New": 4, "B": 3, "A": 2])
        #expect(edited.database.accessory(withID: 2) == first.database.accessory(withID: 2))
        let reordered = try bridge(["B", "A"]).makeDatabase(identifiers: first.identifiers)
        #expect(ids(reordered) == ["Bridge": 1, "B": 3, "A": 2])
        #expect(reordered.database.accessories.map(\.accessoryID) == [1, 3, 2])
    }

    @Test func anExplicitIDKeepsTheAidAcrossARename() throws {
        var description = bridge([])
        description.accessories = [AccessoryDescription(id: "lamp", name: "Desk Lamp", preset: "lightbulb")]
        let first = try description.makeDatabase(identifiers: IdentifierMap())
        description.accessories[0].name = "Office Lamp"
        let renamed = try description.makeDatabase(identifiers: first.identifiers)
        #expect(renamed.accessories.last?.accessoryID == 2)
        #expect(!renamed.didChange)
    }

    @Test func iidsStayWhenCharacteristicsComeAndGo() throws {
        var description = bridge(["A"], preset: .lightbulb)
        let first = try description.makeDatabase(identifiers: IdentifierMap())
        let onID = try #require(first.database.accessory(withID: 2)?.services.last?.characteristics.first?.instanceID)
        description.accessories[0].services = [
            ServiceDescription(type: "lightbulb", characteristics: ["hue": CharacteristicOverride()])
        ]
        let withHue = try description.makeDatabase(identifiers: first.identifiers)
        #expect(withHue.didChange)
        let light = try #require(withHue.database.accessory(withID: 2)?.services.last)
        #expect(light.characteristics.first?.instanceID == onID)
        let hueID = try #require(light.characteristics.last?.instanceID)
        description.accessories[0].services = nil
        let without = try description.makeDatabase(identifiers: withHue.identifiers)
        #expect(without.didChange)
        #expect(without.database == first.database)
        description.accessories[0].services = [
            ServiceDescription(type: "lightbulb", characteristics: ["saturation": CharacteristicOverride()]),
            ServiceDescription(type: "lightbulb", characteristics: ["hue": CharacteristicOverride()]),
        ]
        let again = try description.makeDatabase(identifiers: without.identifiers)
        let services = try #require(again.database.accessory(withID: 2)?.services)
        #expect(services.count == 3)
        #expect(services[1].characteristics.first?.instanceID == onID)
        #expect(!services[1].characteristics.contains { $0.instanceID == hueID })
        #expect(services[2].characteristics.contains { $0.instanceID != hueID && $0.type == HAPUUID(apple: 0x13) })
        try again.database.validate()
    }

    @Test func metadataChangesCountAsStructureChanges() throws {
        var description = bridge(["A"])
        let first = try description.makeDatabase(identifiers: IdentifierMap())
        description.accessories[0].services = [
            ServiceDescription(
                type: "lightbulb",
                characteristics: ["brightness": CharacteristicOverride(value: .int(20))]
            )
        ]
        #expect(!(try description.makeDatabase(identifiers: first.identifiers).didChange))
        description.accessories[0].services = [
            ServiceDescription(type: "lightbulb", characteristics: ["brightness": CharacteristicOverride(maxValue: 80)])
        ]
        #expect(try description.makeDatabase(identifiers: first.identifiers).didChange)
    }
}
