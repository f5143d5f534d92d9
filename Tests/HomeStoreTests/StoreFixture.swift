import Foundation
import HomeGraph
import HomeStore
import TestFixtures

import enum HAPTypes.AccessoryCategory
import struct HAPTypes.CharacteristicMetadata
import enum HAPTypes.Format
import struct HAPTypes.HAPUUID
import enum HAPTypes.HAPValue
import enum HAPTypes.Permission

/// A fresh state folder and helpers that build homes whose names are easy to look for in raw bytes.
struct StoreFixture {
    let folder: String
    var ids = SeededIDGenerator(seed: 42)

    init() throws {
        folder = NSTemporaryDirectory() + "homestore-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Removes the folder.
    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// Every regular file in the folder, concatenated.
    func rawBytes() throws -> Data {
        var all = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            all += try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return all
    }

    /// The tests' lamp (TestFixtures) made by "Hearth", with a read-only temperature in its service.
    mutating func makeLamp(_ name: String, room: UUID) -> Accessory {
        var lamp = Accessory.testLamp(named: name, roomID: room, ids: &ids)
        lamp.manufacturer = "Hearth"
        lamp.services[0].characteristics.append(
            .testTemperature(id: ids.makeID(), instanceID: 13, permissions: [.read, .notify])
        )
        return lamp
    }

    /// Operations that build a home "Quokka Manor\(suffix)" with rooms, a zone and `lamps` lamps, then change values.
    mutating func homeOperations(lamps: Int, suffix: String = "") -> (home: UUID, operations: [HomeOperation]) {
        let home = ids.makeID()
        let kitchen = ids.makeID()
        let attic = ids.makeID()
        var operations: [HomeOperation] = [
            .addHome(id: home, name: "Quokka Manor\(suffix)", roomForEntireHomeID: ids.makeID()),
            .addRoom(home: home, id: kitchen, name: "Wombat Kitchen\(suffix)"),
            .addRoom(home: home, id: attic, name: "Platypus Attic\(suffix)"),
            .addZone(home: home, id: ids.makeID(), name: "Upstairs Numbat\(suffix)", roomIDs: [attic]),
            .addUser(home: home, id: ids.makeID(), name: "Bilby Owner\(suffix)", role: .owner),
        ]
        for index in 0..<lamps {
            let lamp = makeLamp("Echidna Lamp \(index)\(suffix)", room: index.isMultiple(of: 2) ? kitchen : attic)
            operations.append(.addAccessory(home: home, accessory: lamp))
            let characteristics = lamp.characteristics
            operations.append(
                .updateCharacteristicValue(
                    home: home,
                    characteristic: characteristics[1].id,
                    value: .int(Int64(index % 99 + 1))
                )
            )
            operations.append(
                .updateCharacteristicValue(home: home, characteristic: characteristics[2].id, value: .float(21))
            )
            operations.append(
                .updateCharacteristicValue(home: home, characteristic: characteristics[2].id, value: .float(21.5))
            )
        }
        return (home, operations)
    }

    /// A store opened in the fixture's folder holding a home of one lamp (`homeOperations(lamps: 1)`), applied one
    /// operation at a time; the home's id.
    mutating func storeWithOneLampHome() throws -> (store: HomeStore, home: UUID) {
        let (home, operations) = homeOperations(lamps: 1)
        let store = try HomeStore(folder: folder)
        for operation in operations { try store.apply(operation) }
        return (store, home)
    }

    /// The names `homeOperations` uses, which must never appear in the database files.
    static let secretNames = ["Quokka", "Wombat", "Platypus", "Numbat", "Bilby", "Echidna"]
}
