import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct CatalogTemplateTests {
    @Test func buildsAServiceWithConsecutiveInstanceIDs() throws {
        let catalog = try TypeCatalog.shared()
        let light = try catalog.makeService(
            named: "lightbulb",
            instanceID: 7,
            optionalCharacteristics: ["brightness", "name"],
            isPrimary: true
        )
        #expect(light.instanceID == 7 && light.isPrimary)
        #expect(light.type == HAPUUID(apple: 0x43))
        #expect(light.characteristics.map(\.instanceID) == [8, 9, 10])
        #expect(light.characteristics.map(\.type.wireForm) == ["25", "8", "23"])
        let brightness = light.characteristics[1]
        #expect(brightness.format == .int && brightness.unit == .percentage)
        #expect(brightness.minValue == 0 && brightness.maxValue == 100 && brightness.minStep == 1)
        #expect(brightness.value == .int(0))
        #expect(light.characteristics[0].value == .bool(false))
        #expect(light.characteristics[2].maxLength == nil, "maxLen 64 is left out")
    }

    @Test func buildsCharacteristicsWithNeutralValues() throws {
        let catalog = try TypeCatalog.shared()
        #expect(try catalog.makeCharacteristic(named: "identify", instanceID: 2).value == nil)
        #expect(try catalog.makeCharacteristic(named: "programmableSwitchEvent", instanceID: 2).value == nil)
        #expect(try catalog.makeCharacteristic(named: "lockTargetState", instanceID: 2).validValues == [0, 1])
        #expect(try catalog.makeCharacteristic(named: "targetTemperature", instanceID: 2).value == .float(10))
        #expect(try catalog.makeCharacteristic(named: "temp", instanceID: 2).value == .float(0))
        #expect(try catalog.makeCharacteristic(named: "on", instanceID: 2, value: .bool(true)).value == .bool(true))
    }

    @Test func refusesUnknownTypesAndCharacteristicsOutsideTheService() throws {
        let catalog = try TypeCatalog.shared()
        #expect(throws: CatalogError.unknownService("toaster")) {
            try catalog.makeService(named: "toaster", instanceID: 1)
        }
        #expect(throws: CatalogError.unknownCharacteristic("sparkle")) {
            try catalog.makeService(named: "lightbulb", instanceID: 1, optionalCharacteristics: ["sparkle"])
        }
        #expect(throws: CatalogError.characteristicNotInService(service: "lightbulb", characteristic: "volume")) {
            try catalog.makeService(named: "lightbulb", instanceID: 1, optionalCharacteristics: ["volume"])
        }
        #expect(throws: CatalogError.unknownCharacteristic("sparkle")) {
            try catalog.makeCharacteristic(named: "sparkle", instanceID: 1)
        }
    }

    @Test func aDatabaseBuiltFromTheCatalogSurvivesAJSONRoundTrip() throws {
        let catalog = try TypeCatalog.shared()
        var information = try catalog.makeService(named: "accessoryInformation", instanceID: 1)
        information.characteristics[1].value = .string("Acme")
        let light = try catalog.makeService(named: "lamp", instanceID: 8, optionalCharacteristics: ["hue"])
        let database = AccessoryDatabase(accessories: [HAPAccessory(accessoryID: 1, services: [information, light])])
        let data = try HAPJSON.encode(database)
        #expect(try HAPJSON.decode(AccessoryDatabase.self, from: data) == database)
        #expect(String(decoding: data, as: UTF8.self).contains(#""type":"3E""#))
    }

    @Test func rejectsAMalformedCatalog() {
        func catalog(_ services: String, _ characteristics: String) throws(CatalogError) -> TypeCatalog {
            let text = #"{"version":1,"notes":[],"services":[\#(services)],"characteristics":[\#(characteristics)]}"#
            return try TypeCatalog(data: Data(text.utf8))
        }
        let on =
            #"{"uuid":"25","name":"on","displayName":"On","synonyms":["power"],"format":"bool","permissions":["pr"]}"#
        let power =
            #"{"uuid":"26","name":"inUse","displayName":"In Use","synonyms":["power"],"format":"bool","permissions":["pr"]}"#
        let again =
            #"{"uuid":"25","name":"other","displayName":"Other","synonyms":[],"format":"bool","permissions":["pr"]}"#
        let light =
            #"{"uuid":"43","name":"lightbulb","displayName":"Lightbulb","synonyms":[],"requiredCharacteristics":["on"],"optionalCharacteristics":["sparkle"]}"#
        #expect(throws: Never.self) { try catalog("", on) }
        #expect(throws: CatalogError.self) { try TypeCatalog(data: Data("{".utf8)) }
        #expect(throws: CatalogError.duplicateType(HAPUUID(apple: 0x25))) { try catalog("", on + "," + again) }
        #expect(throws: CatalogError.duplicateName("power")) { try catalog("", on + "," + power) }
        #expect(throws: CatalogError.undefinedCharacteristic(service: "lightbulb", characteristic: "sparkle")) {
            try catalog(light, on)
        }
    }
}

@Suite struct CatalogRequirementTests {
    @Test func findsMissingRequiredCharacteristics() throws {
        let catalog = try TypeCatalog.shared()
        var thermostat = try catalog.makeService(named: "thermostat", instanceID: 20)
        #expect(catalog.missingRequiredCharacteristics(in: thermostat).isEmpty)
        thermostat.characteristics.removeAll { $0.type == HAPUUID(apple: 0x11) }
        #expect(catalog.missingRequiredCharacteristics(in: thermostat) == ["currentTemperature"])
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: Data(DatabaseDecodingTests.specExample.utf8))
        let information = try #require(database.accessories.first?.services.first)
        #expect(
            catalog.missingRequiredCharacteristics(in: information) == [
                "model", "name", "serialNumber", "firmwareRevision",
            ]
        )
        let custom = HAPService(
            instanceID: 1,
            type: try HAPUUID("E863F10D-079E-48FF-8F27-9C2605A29F52"),
            characteristics: []
        )
        #expect(catalog.missingRequiredCharacteristics(in: custom).isEmpty)
    }
}
