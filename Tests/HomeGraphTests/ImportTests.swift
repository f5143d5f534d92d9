import Foundation
import HAP
import HAPTypes
import Testing

@testable import HomeGraph

@Suite struct ImportTests {
    /// A HAP accessory as an accessory server describes it: information, a dimmable lightbulb, a custom service.
    func makeHAPAccessory(named name: String) throws -> HAPAccessory {
        let catalog = try TypeCatalog.shared()
        var information = try catalog.makeService(named: "accessoryInformation", instanceID: 1)
        let texts: [HAPUUID: String] = [
            HAPUUID(apple: 0x23): name, HAPUUID(apple: 0x20): "Acme", HAPUUID(apple: 0x21): "L-1",
            HAPUUID(apple: 0x30): "0042", HAPUUID(apple: 0x52): "2.1.0",
        ]
        for index in information.characteristics.indices {
            if let text = texts[information.characteristics[index].type] {
                information.characteristics[index].value = .string(text)
            }
        }
        let bulb = try catalog.makeService(
            named: "lightbulb",
            instanceID: 10,
            optionalCharacteristics: ["brightness"],
            isPrimary: true
        )
        let custom = HAPService(
            instanceID: 20,
            type: try HAPUUID("A1B2C3D4-0000-1000-8000-123456789ABC"),
            characteristics: []
        )
        return HAPAccessory(accessoryID: 2, services: [information, bulb, custom])
    }

    @Test func importsAnAccessoryWithNamesFromItsInformationAndTheCatalog() throws {
        let catalog = try TypeCatalog.shared()
        var ids = SeededIDGenerator(seed: 1)
        let room = UUID()
        let bridge = UUID()
        let accessory = Accessory(
            importing: try makeHAPAccessory(named: " Desk Lamp "),
            roomID: room,
            category: .lightbulb,
            bridgeID: bridge,
            catalog: catalog,
            ids: &ids
        )
        #expect(accessory.name == "Desk Lamp")
        #expect(accessory.roomID == room)
        #expect(accessory.category == .lightbulb)
        #expect(accessory.isBridged && accessory.bridgeID == bridge)
        #expect(accessory.accessoryInstanceID == 2)
        #expect(
            [accessory.manufacturer, accessory.model, accessory.serialNumber, accessory.firmwareRevision]
                == ["Acme", "L-1", "0042", "2.1.0"]
        )
        // The information service carries the accessory's Name; the others fall back to the catalog.
        #expect(accessory.services.map(\.name) == ["Desk Lamp", "Lightbulb", "Service"])
        #expect(accessory.services.map(\.isPrimary) == [false, true, false])
        let brightness = try #require(accessory.services[1].characteristics.first { $0.type == HAPUUID(apple: 0x08) })
        #expect(brightness.metadata.maxValue == 100 && brightness.metadata.minStep == 1)
        #expect(brightness.instanceID == 12)
        let allIDs = [accessory.id] + accessory.services.flatMap { [$0.id] + $0.characteristics.map(\.id) }
        #expect(Set(allIDs).count == allIDs.count)

        var again = SeededIDGenerator(seed: 1)
        let twin = Accessory(
            importing: try makeHAPAccessory(named: " Desk Lamp "),
            roomID: room,
            category: .lightbulb,
            bridgeID: bridge,
            catalog: catalog,
            ids: &again
        )
        #expect(twin == accessory, "the same seed gives the same ids")
    }

    @Test func anImportedAccessoryKeepsItsMetadataRules() throws {
        var fixture = try Fixture()
        var ids = SeededIDGenerator(seed: 2)
        let accessory = Accessory(
            importing: try makeHAPAccessory(named: "Lamp"),
            name: "Reading Lamp",
            roomID: fixture.entireHomeRoomID,
            catalog: try TypeCatalog.shared(),
            ids: &ids
        )
        try fixture.apply(.addAccessory(home: fixture.homeID, accessory: accessory))
        let brightness = try #require(accessory.services[1].characteristics.first { $0.type == HAPUUID(apple: 0x08) })
        fixture.expectFailure(
            .writeCharacteristicValue(home: fixture.homeID, characteristic: brightness.id, value: .int(101)),
            .invalidValue(.aboveMaximum(value: 101, minimum: 0, maximum: 100), characteristicType: brightness.type)
        )
        let manufacturer = try #require(accessory.services[0].characteristics.first { $0.type == HAPUUID(apple: 0x20) })
        fixture.expectFailure(
            .writeCharacteristicValue(home: fixture.homeID, characteristic: manufacturer.id, value: .string("x")),
            .invalidValue(.notWritable(HAPUUID(apple: 0x20)), characteristicType: HAPUUID(apple: 0x20))
        )
    }

    @Test func seededIDsAreVersion4UUIDs() {
        var ids = SeededIDGenerator(seed: 99)
        let made = (0..<100).map { _ in ids.makeID() }
        #expect(Set(made).count == 100)
        #expect(made.allSatisfy { $0.uuidString.dropFirst(14).first == "4" })
        var system = SystemIDGenerator()
        #expect(system.makeID() != system.makeID())
    }
}

@Suite struct HomeGraphErrorTests {
    @Test func everyErrorHasAnAPICodeAndStatus() {
        let id = UUID()
        let cases: [(HomeGraphError, String, Int)] = [
            (.notFound(.room, id), "notFound", 404),
            (.nameTaken(name: "Kitchen", existing: ObjectReference(.room, id)), "nameTaken", 409),
            (.invalidName(" ", .nothingVisible), "invalidName", 400),
            (.idTaken(ObjectReference(.zone, id)), "idTaken", 409),
            (
                .invalidValue(.notWritable(HAPUUID(apple: 0x11)), characteristicType: HAPUUID(apple: 0x11)),
                "invalidValue",
                400
            ),
            (.roomForEntireHome(id), "roomForEntireHome", 409),
            (.invalidLocation(Location(latitude: 99, longitude: 0)), "invalidLocation", 400),
            (.invalidTimeZone("Nowhere"), "invalidTimeZone", 400),
            (.ownerExists(id), "ownerExists", 409),
            (.builtInActionSetExists(.sleep, existing: id), "builtInActionSetExists", 409),
            (.builtInActionSetNotRemovable(.sleep, name: "Sleep", id: id), "builtInActionSetNotRemovable", 409),
            (.duplicateAction(characteristicID: id), "duplicateAction", 400),
            (.invalidBridge(id), "invalidBridge", 400),
        ]
        for (error, code, status) in cases {
            #expect(error.code == code)
            #expect(error.httpStatus == status)
        }
    }
}
