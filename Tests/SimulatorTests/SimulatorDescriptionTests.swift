import Foundation
import HAP
import HAPTypes
import Testing

@testable import Simulator

@Suite struct SimulatorDescriptionTests {
    private func build(_ json: String) throws(DescriptionError) -> DatabaseBuild {
        try SimulatorDescription(jsonData: Data(json.utf8)).makeDatabase(identifiers: IdentifierMap())
    }

    private func error(_ json: String) -> DescriptionError? {
        do {
            _ = try SimulatorDescription(jsonData: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: Preset.allCases)
    func everyPresetBuildsAValidDatabase(preset: Preset) throws {
        let description = SimulatorDescription(bridgeName: "Bridge", presets: [PresetRequest(preset: preset)])
        let build = try description.makeDatabase(identifiers: IdentifierMap())
        try build.database.validate()
        #expect(build.database.accessories.count == 2)
        let accessory = try #require(build.database.accessories.last)
        #expect(accessory.services.first?.type == HAPUUID(apple: 0x3E))
        #expect(accessory.services.count >= 2)
        let standalone = SimulatorDescription(
            bridge: nil,
            accessories: [AccessoryDescription(name: "One", preset: preset.rawValue)]
        )
        let alone = try standalone.makeDatabase(identifiers: IdentifierMap())
        try alone.database.validate()
        #expect(alone.category == preset.category)
    }

    @Test func theBridgeHasProtocolInformationAndHearthInformation() throws {
        let build = try SimulatorDescription(bridgeName: "Bridge", presets: []).makeDatabase(
            identifiers: IdentifierMap()
        )
        let bridge = try #require(build.database.accessory(withID: 1))
        #expect(build.category == .bridge)
        #expect(bridge.services.map(\.type) == [HAPUUID(apple: 0x3E), HAPUUID(apple: 0xA2)])
        #expect(bridge.services[0].instanceID == 1)
        let values = bridge.services.flatMap(\.characteristics).compactMap(\.value)
        #expect(values.contains(.string("Hearth")))
        #expect(values.contains(.string("1.1.0")))
        #expect(
            bridge.services[0].characteristics.map(\.type)
                == [0x14, 0x20, 0x21, 0x23, 0x30, 0x52].map { HAPUUID(apple: $0) }
        )
    }

    @Test func presetRequestsNameAndCountAccessories() throws {
        let requests = try ["lightbulb:3", "door-lock"].map { text throws(DescriptionError) in
            try PresetRequest(parsing: text)
        }
        let description = SimulatorDescription(bridgeName: "Bridge", presets: requests)
        #expect(description.accessories.map(\.name) == ["Lightbulb 1", "Lightbulb 2", "Lightbulb 3", "Door Lock"])
        #expect(throws: DescriptionError.invalidPresetRequest("lightbulb:0")) {
            try PresetRequest(parsing: "lightbulb:0")
        }
        #expect(throws: DescriptionError.unknownPreset(accessory: "lamp", preset: "lamp")) {
            try PresetRequest(parsing: "lamp")
        }
    }

    @Test func overridesAndCustomCharacteristicsAreApplied() throws {
        let build = try build(
            """
            {"bridge": {"name": "Bridge"}, "accessories": [
              {"name": "Desk Lamp", "preset": "lightbulb-dimmable", "count": 2,
               "services": [{"type": "lamp", "name": "Lamp",
                 "characteristics": {"brightness": {"value": 50, "minValue": 10}, "color temp": {"value": 300}},
                 "custom": [{"uuid": "E863F10A-079E-48FF-8F27-9C2605A29F52", "format": "uint8",
                             "perms": ["pr", "ev"], "value": 7, "maxValue": 9, "description": "Watts"}]}]},
              {"name": "Fridge Door", "services": [{"type": "contact sensor"}]}
            ]}
            """
        )
        try build.database.validate()
        #expect(build.accessories.map(\.name) == ["Bridge", "Desk Lamp 1", "Desk Lamp 2", "Fridge Door"])
        let lamp = try #require(build.database.accessory(withID: 2))
        let light = try #require(lamp.services.first { $0.type == HAPUUID(apple: 0x43) })
        #expect(lamp.services.count == 2)
        let brightness = try #require(light.characteristics.first { $0.type == HAPUUID(apple: 0x08) })
        #expect(brightness.value == .int(50))
        #expect(brightness.minValue == 10)
        #expect(light.characteristics.contains { $0.type == HAPUUID(apple: 0xCE) && $0.value == .uint(300) })
        #expect(light.characteristics.contains { $0.type == HAPUUID(apple: 0x23) && $0.value == .string("Lamp") })
        let custom = try #require(light.characteristics.last)
        #expect(custom.type.uuidString == "E863F10A-079E-48FF-8F27-9C2605A29F52")
        #expect(custom.value == .uint(7))
        #expect(custom.maxValue == 9)
    }

    @Test func enumerationValuesTakeNames() throws {
        let build = try build(
            """
            {"bridge": null, "accessories": [{"name": "Front Door", "preset": "door-lock",
              "services": [{"type": "lock", "characteristics": {"lockTargetState": {"value": "unsecured"},
                                                                "lockCurrentState": {"value": "unsecured"}}}]}]}
            """
        )
        let lock = try #require(build.database.accessories.first?.services.last)
        #expect(lock.characteristics.map(\.value) == [.uint(0), .uint(0)])
    }

    @Test func badDescriptionsFailWithTypedErrors() {
        #expect(
            error(#"{"bridge": {"name": "B"}, "accessories": [{"name": "X", "preset": "toaster"}]}"#)
                == .unknownPreset(accessory: "X", preset: "toaster")
        )
        #expect(
            error(#"{"bridge": null, "accessories": [{"name": "X", "services": [{"type": "toaster"}]}]}"#)
                == .unknownServiceType(accessory: "X", field: "accessories[0].services[0].type", type: "toaster")
        )
        #expect(
            error(
                #"{"bridge": null, "accessories": [{"name": "X", "services": [{"type": "switch", "characteristics": {"sparkle": {}}}]}]}"#
            )
                == .unknownCharacteristic(
                    accessory: "X",
                    field: "accessories[0].services[0].characteristics.sparkle",
                    name: "sparkle"
                )
        )
        #expect(
            error(
                #"{"bridge": null, "accessories": [{"name": "X", "services": [{"type": "switch", "characteristics": {"brightness": {}}}]}]}"#
            )
                == .characteristicNotInService(
                    accessory: "X",
                    field: "accessories[0].services[0].characteristics.brightness",
                    characteristic: "brightness",
                    service: "switch"
                )
        )
        #expect(
            error(
                #"{"bridge": null, "accessories": [{"name": "X", "preset": "lightbulb-dimmable", "services": [{"type": "lightbulb", "characteristics": {"brightness": {"minValue": -5}}}]}]}"#
            )
                == .outOfRange(
                    accessory: "X",
                    field: "accessories[0].services[0].characteristics.brightness.minValue",
                    value: -5,
                    allowed: 0...100
                )
        )
        #expect(
            error(
                #"{"bridge": null, "accessories": [{"name": "X", "preset": "lightbulb-dimmable", "services": [{"type": "lightbulb", "characteristics": {"brightness": {"value": 150}}}]}]}"#
            )
                == .invalidValue(
                    accessory: "X",
                    field: "accessories[0].services[0].characteristics.brightness.value",
                    .aboveMaximum(value: 150, minimum: 0, maximum: 100)
                )
        )
        #expect(
            error(#"{"bridge": {"name": "B"}, "accessories": [{"name": "X", "behaviour": {"lockDelaySeconds": -1}}]}"#)
                == .invalidBehaviour(accessory: "X", field: "behaviour.lockDelaySeconds")
        )
        #expect(
            error(#"{"bridge": {"name": "B"}, "accessories": [{"name": "X"}, {"name": "x"}]}"#)
                == .duplicateAccessory("x")
        )
        #expect(error(#"{"bridge": null, "accessories": []}"#) == .bridgeRequired(accessoryCount: 0))
        guard case .invalidJSON(let text) = error(#"{"bridge": null, "accessories": [{"nam": "X"}]}"#) else {
            Issue.record("missing name was not invalid JSON")
            return
        }
        #expect(text.contains("name"))
        guard case .invalidJSON = error("{not json") else {
            Issue.record("bad JSON was not invalid JSON")
            return
        }
        guard
            case .invalidCustomCharacteristic = error(
                #"{"bridge": null, "accessories": [{"name": "X", "services": [{"type": "switch", "custom": [{"uuid": "nope", "format": "bool", "perms": ["pr"]}]}]}]}"#
            )
        else {
            Issue.record("a bad custom UUID was accepted")
            return
        }
    }

    @Test("A bridge of 150 accessories builds; 151 is refused")
    func aBridgeHoldsAtMost150Accessories() throws {
        let full = SimulatorDescription(bridgeName: "Bridge", presets: [PresetRequest(preset: .lightbulb, count: 149)])
        let build = try full.makeDatabase(identifiers: IdentifierMap())
        #expect(build.database.accessories.count == 150)
        #expect(build.database.accessories.last?.accessoryID == 150)
        let over = SimulatorDescription(
            bridgeName: "Bridge",
            presets: [PresetRequest(preset: .lightbulb, count: 149), PresetRequest(preset: .outlet)]
        )
        #expect(throws: DescriptionError.tooManyAccessories(count: 151, maximum: 150)) {
            try over.makeDatabase(identifiers: IdentifierMap())
        }
    }

    @Test func theDescriptionRoundTripsThroughJSON() throws {
        let description = SimulatorDescription(bridgeName: "Bridge", presets: [PresetRequest(preset: .fan, count: 2)])
        let decoded = try SimulatorDescription(jsonData: description.jsonData())
        #expect(decoded == description)
    }
}
