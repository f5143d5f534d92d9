import HAP
import HAPController
import HAPTypes
import Testing
import hearth

@Suite struct CommandLineArgumentsTests {
    @Test func readsDeviceIDsAndAddresses() throws {
        #expect(try AccessoryTarget("aa:bb:cc:00:11:22") == .deviceID("AA:BB:CC:00:11:22"))
        #expect(try AccessoryTarget("198.19.1.1:51826") == .address(host: "198.19.1.1", port: 51826))
        for bad in ["", "kitchen", "aa:bb:cc:00:11", "1.2.3:80", "1.2.3.4", "1.2.3.4:0", "1.2.3.400:80", "a.b.c.d:1"] {
            #expect(throws: CommandLineArgumentError.invalidAccessory(bad)) { try AccessoryTarget(bad) }
        }
    }

    @Test func matchesStoredRecordsByDeviceIDOrAddress() throws {
        let record = PairedAccessoryRecord(
            deviceID: "AA:BB:CC:00:11:22",
            publicKey: [],
            host: "10.0.0.2",
            addresses: ["10.0.0.2", "10.0.0.3"],
            port: 51826
        )
        #expect(try AccessoryTarget("aa:bb:cc:00:11:22").matches(record))
        #expect(try AccessoryTarget("10.0.0.3:51826").matches(record))
        #expect(try !AccessoryTarget("10.0.0.3:51827").matches(record))
        #expect(try !AccessoryTarget("AA:BB:CC:00:11:23").matches(record))
    }

    @Test func readsCharacteristicIDsAndAssignments() throws {
        #expect(try CharacteristicID(argument: "2.10") == CharacteristicID(accessoryID: 2, instanceID: 10))
        for bad in ["2", "2.", ".10", "2.10.1", "a.b", "-1.2"] {
            #expect(throws: CommandLineArgumentError.invalidCharacteristicID(bad)) {
                try CharacteristicID(argument: bad)
            }
        }
        let (id, text) = try CharacteristicID.assignment("3.9=Hello = world")
        #expect(id == CharacteristicID(accessoryID: 3, instanceID: 9))
        #expect(text == "Hello = world")
        #expect(throws: CommandLineArgumentError.invalidAssignment("3.9")) { try CharacteristicID.assignment("3.9") }
    }

    @Test func typesValuesByFormat() throws {
        #expect(try HAPValue(argument: "true", format: .bool) == .bool(true))
        #expect(try HAPValue(argument: "0", format: .bool) == .bool(false))
        #expect(try HAPValue(argument: "255", format: .uint8) == .uint(255))
        #expect(try HAPValue(argument: "-5", format: .int) == .int(-5))
        #expect(try HAPValue(argument: "18.5", format: .float) == .float(18.5))
        #expect(try HAPValue(argument: "20", format: .float) == .float(20))
        #expect(try HAPValue(argument: "Desk", format: .string) == .string("Desk"))
        #expect(try HAPValue(argument: "AQI=", format: .tlv8) == .data([1, 2]))
    }

    @Test func refusesValuesThatDoNotFitTheFormat() {
        let cases: [(String, Format)] = [
            ("maybe", .bool), ("2", .bool), ("256", .uint8), ("-1", .uint16), ("1.5", .int), ("warm", .float),
            ("nan", .float), ("3000000000", .int), ("%%", .data),
        ]
        for (text, format) in cases {
            #expect(throws: CommandLineArgumentError.self) { try HAPValue(argument: text, format: format) }
        }
        let error = CommandLineArgumentError.invalidValue(text: "maybe", format: .bool, reason: "true, false, 1 or 0")
        #expect(error.description == "\"maybe\" is not a bool value. Give true, false, 1 or 0")
    }
}
