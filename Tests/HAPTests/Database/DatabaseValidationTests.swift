import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct DatabaseValidationTests {
    static func bridge() throws -> AccessoryDatabase {
        let catalog = try TypeCatalog.shared()
        let information = try catalog.makeService(named: "accessoryInformation", instanceID: 1)
        let light = try catalog.makeService(named: "lightbulb", instanceID: 8, optionalCharacteristics: ["brightness"])
        let sensorInformation = try catalog.makeService(named: "accessoryInformation", instanceID: 1)
        let sensor = try catalog.makeService(named: "temperatureSensor", instanceID: 8)
        return AccessoryDatabase(accessories: [
            HAPAccessory(accessoryID: 1, services: [information, light]),
            HAPAccessory(accessoryID: 2, services: [sensorInformation, sensor]),
        ])
    }

    @Test func acceptsADatabaseBuiltFromTheCatalog() throws {
        try Self.bridge().validate()
    }

    @Test("Accepts the §7.4 example")
    func acceptsTheSpecExample() throws {
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: Data(DatabaseDecodingTests.specExample.utf8))
        try database.validate()
    }

    @Test func rejectsEmptyAndOversizedDatabases() throws {
        #expect(throws: DatabaseError.noAccessories) { try AccessoryDatabase(accessories: []).validate() }
        let one = try #require(Self.bridge().accessories.first)
        let many = AccessoryDatabase(
            accessories: (1...151).map { HAPAccessory(accessoryID: UInt64($0), services: one.services) }
        )
        #expect(throws: DatabaseError.tooManyAccessories(count: 151, maximum: 150)) { try many.validate() }
    }

    @Test func rejectsRepeatedOrZeroIDs() throws {
        var database = try Self.bridge()
        database.accessories[1].accessoryID = 1
        #expect(throws: DatabaseError.invalidAccessoryID(1)) { try database.validate() }
        database = try Self.bridge()
        database.accessories[0].services[1].characteristics[0].instanceID = 2
        #expect(throws: DatabaseError.invalidInstanceID(accessoryID: 1, instanceID: 2)) { try database.validate() }
        database = try Self.bridge()
        database.accessories[0].services[1].instanceID = 0
        #expect(throws: DatabaseError.invalidInstanceID(accessoryID: 1, instanceID: 0)) { try database.validate() }
    }

    @Test func rejectsAnAccessoryWithoutAccessoryInformation() throws {
        var database = try Self.bridge()
        database.accessories[1].services.removeFirst()
        #expect(throws: DatabaseError.missingAccessoryInformation(accessoryID: 2)) { try database.validate() }
    }

    @Test func rejectsLinksToMissingServices() throws {
        var database = try Self.bridge()
        database.accessories[0].services[1].linkedServices = [3]
        #expect(throws: DatabaseError.unknownLinkedService(accessoryID: 1, serviceID: 8, linkedID: 3)) {
            try database.validate()
        }
    }

    @Test func rejectsBadMetadataAndValues() throws {
        var database = try Self.bridge()
        database.accessories[0].services[1].characteristics[1].minValue = 200
        #expect(throws: DatabaseError.inconsistentMetadata(CharacteristicID(accessoryID: 1, instanceID: 10))) {
            try database.validate()
        }
        database = try Self.bridge()
        database.accessories[0].services[1].characteristics[1].value = .int(150)
        let expected = DatabaseError.invalidValue(
            CharacteristicID(accessoryID: 1, instanceID: 10),
            .aboveMaximum(value: 150, minimum: 0, maximum: 100)
        )
        #expect(throws: expected) { try database.validate() }
    }
}
