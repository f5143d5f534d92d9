import Foundation
import HAPTypes
import HomeGraph
import Testing

/// The corpus homes as home files (Corpus/homes/*.json): they must stay what the builders in Homes.swift make.
///
/// `hearth say --home` tests and the benchmark read them. Run with `CORPUS_WRITE_HOMES=1` to rewrite them.
@Suite struct HomeFileTests {
    /// When every file says it was written.
    static let exportedAt = Date(timeIntervalSince1970: 1_767_225_600)

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus/homes")
    }

    @Test func checkedInHomeFilesAreWhatTheBuildersMake() throws {
        let write = ProcessInfo.processInfo.environment["CORPUS_WRITE_HOMES"] == "1"
        for (name, home) in try CorpusHomes.all() {
            let data = try HomeFile(home: home, exportedAt: Self.exportedAt).encoded()
            let url = Self.directory.appendingPathComponent("\(name).json")
            if write { try data.write(to: url) }
            let stored = try Data(contentsOf: url)
            #expect(stored == data, "Corpus/homes/\(name).json differs from CorpusHomes.\(name)(); rewrite it")
            let decoded = try HomeFile.decode(stored)
            #expect(decoded.home.accessories.count == home.accessories.count)
            #expect(try decoded.encoded() == stored, "Corpus/homes/\(name).json does not read back as written")
        }
    }

    @Test func theHomesHaveTheirShape() throws {
        let homes = try CorpusHomes.all()
        let flat = try #require(homes["flat"])
        let house = try #require(homes["house"])
        let large = try #require(homes["large"])
        #expect(flat.rooms.count == 6 && flat.accessories.count >= 15)
        #expect(house.zones.map(\.name) == ["Downstairs", "Upstairs"] && house.accessories.count >= 40)
        #expect(house.displayTemperatureUnit == .fahrenheit)
        #expect(large.accessories.count >= 200 && large.zones.count == 3)
        for home in [flat, house, large] {
            #expect(home.actionSets.filter { $0.kind.isBuiltIn }.count == 4)
            var names = Set<String>()
            for name in home.uniquelyNamedObjects() { #expect(names.insert(name.lowercased()).inserted, "\(name)") }
            var ids = Set<UUID>()
            for accessory in home.accessories {
                #expect(accessory.services.first?.type == HAPUUID(apple: 0x3E))
                for id in [accessory.id] + accessory.services.map(\.id) + accessory.characteristics.map(\.id) {
                    #expect(ids.insert(id).inserted)
                }
            }
        }
    }
}

extension Home {
    /// The names HomeKit keeps unique in a home: rooms, zones, accessories, groups, scenes.
    func uniquelyNamedObjects() -> [String] {
        allRooms.map(\.name) + zones.map(\.name) + accessories.map(\.name) + serviceGroups.map(\.name)
            + actionSets.map(\.name)
    }
}
