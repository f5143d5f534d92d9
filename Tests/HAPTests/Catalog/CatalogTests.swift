import Foundation
import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct CatalogTests {
    /// Every service type in hap-protocol.md §11.1, ProtocolInformation included.
    static let section11Services: [UInt32] = [
        0x3E, 0xA2, 0x43, 0x49, 0x47, 0x40, 0xB7, 0x41, 0x45, 0x44, 0x4A, 0x8A, 0x82, 0x85, 0x80, 0x86, 0x87, 0x7F,
        0x83, 0x84, 0x8D, 0x7E, 0x8C, 0x81, 0x8B, 0x89, 0x121, 0x96,
    ]
    /// Every characteristic type in hap-protocol.md §11.2.
    static let section11Characteristics: [UInt32] = [
        0x1, 0x5, 0x8, 0xD, 0xE, 0xF, 0x10, 0x11, 0x12, 0x13, 0x14, 0x19, 0x1A, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21,
        0x22, 0x23, 0x24, 0x25, 0x26, 0x28, 0x29, 0x2F, 0x30, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x52, 0x53, 0x69,
        0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F, 0x70, 0x71, 0x72, 0x73, 0x75, 0x76, 0x77, 0x79, 0x7A, 0x7B, 0x7C, 0x7D,
        0x66, 0x67, 0x68, 0x8E, 0x8F, 0x90, 0x91, 0x95, 0xA6, 0xA7, 0xAF, 0xB0, 0xB6, 0xBF, 0xC3, 0xC4, 0xC5, 0xC6,
        0xC7, 0xC8, 0xCB, 0xCE, 0x119, 0x11A,
    ]

    static func isLowerCamelCase(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        }
    }

    @Test func loadsTheBundledCatalogOnceAndTheSameEveryTime() throws {
        let loaded = try TypeCatalog.load()
        let shared = try TypeCatalog.shared()
        #expect(loaded == shared)
        #expect(loaded.version == 1)
        #expect(!loaded.notes.isEmpty)
    }

    @Test("Covers every type in hap-protocol.md §11")
    func coversEveryTypeInSection11() throws {
        let catalog = try TypeCatalog.shared()
        for short in Self.section11Services {
            #expect(catalog.service(for: HAPUUID(apple: short)) != nil, "service \(String(short, radix: 16))")
        }
        for short in Self.section11Characteristics {
            #expect(
                catalog.characteristic(for: HAPUUID(apple: short)) != nil,
                "characteristic \(String(short, radix: 16))"
            )
        }
        // Beyond §11: heater-cooler (BC) and air purifier (BB) with their state characteristics, which the
        // simulator's presets need (values from HAP-NodeJS).
        let additionalServices: [UInt32] = [0xBC, 0xBB]
        let additionalCharacteristics: [UInt32] = [0xB1, 0xB2, 0xA8, 0xA9]
        for short in additionalServices { #expect(catalog.service(for: HAPUUID(apple: short)) != nil) }
        for short in additionalCharacteristics { #expect(catalog.characteristic(for: HAPUUID(apple: short)) != nil) }
        #expect(catalog.services.count == Self.section11Services.count + additionalServices.count)
        #expect(
            catalog.characteristics.count == Self.section11Characteristics.count + additionalCharacteristics.count
        )
        #expect(catalog.service(for: HAPUUID(apple: 0x43))?.name == "lightbulb")
        #expect(catalog.service(for: HAPUUID(apple: 0x8A))?.name == "temperatureSensor")
        #expect(catalog.service(for: HAPUUID(apple: 0x121))?.name == "doorbell")
        #expect(catalog.characteristic(for: HAPUUID(apple: 0xCE))?.name == "colorTemperature")
    }

    @Test func servicesAreWellFormed() throws {
        let catalog = try TypeCatalog.shared()
        #expect(Set(catalog.services.map(\.uuid)).count == catalog.services.count)
        #expect(Set(catalog.services.map(\.name)).count == catalog.services.count)
        for service in catalog.services {
            #expect(service.uuid.isAppleDefined, "\(service.name)")
            #expect(Self.isLowerCamelCase(service.name), "\(service.name)")
            #expect(!service.displayName.isEmpty && !service.synonyms.isEmpty, "\(service.name)")
            #expect(!service.requiredCharacteristics.isEmpty, "\(service.name)")
            let all = service.requiredCharacteristics + service.optionalCharacteristics
            #expect(Set(all).count == all.count, "\(service.name) lists a characteristic twice")
            for name in all {
                #expect(catalog.characteristic(named: name) != nil, "\(service.name) → \(name)")
            }
        }
    }

    @Test func characteristicsAreWellFormed() throws {
        let catalog = try TypeCatalog.shared()
        #expect(Set(catalog.characteristics.map(\.uuid)).count == catalog.characteristics.count)
        #expect(Set(catalog.characteristics.map(\.name)).count == catalog.characteristics.count)
        for type in catalog.characteristics {
            let label = type.name
            #expect(type.uuid.isAppleDefined, "\(label)")
            #expect(Self.isLowerCamelCase(type.name), "\(label)")
            #expect(!type.displayName.isEmpty && !type.synonyms.isEmpty, "\(label)")
            #expect(type.permissions.contains(.read) || type.permissions.contains(.write), "\(label)")
            #expect(Set(type.permissions).count == type.permissions.count, "\(label)")
            if let minValue = type.minValue, let maxValue = type.maxValue {
                #expect(minValue <= maxValue, "\(label)")
            }
            if type.minValue != nil || type.maxValue != nil || type.minStep != nil || type.unit != nil {
                #expect(type.format.isNumeric, "\(label) has numeric metadata")
            }
            if type.format == .string { #expect(type.maxLength != nil, "\(label)") }
            if let values = type.validValues {
                #expect(!values.isEmpty, "\(label)")
                #expect(Set(values.map(\.value)).count == values.count, "\(label) repeats a value")
                let names = values.flatMap(\.names).map { $0.lowercased() }
                #expect(Set(names).count == names.count, "\(label) repeats a value name")
                for value in values {
                    let identifier = try #require(value.names.first, "\(label) \(value.value) has no name")
                    #expect(Self.isLowerCamelCase(identifier), "\(label) \(identifier)")
                    #expect(type.minValue.map { Double(value.value) >= $0 } ?? true, "\(label) \(value.value)")
                    #expect(type.maxValue.map { Double(value.value) <= $0 } ?? true, "\(label) \(value.value)")
                }
            }
        }
    }

    @Test func everyCharacteristicTemplateHoldsAValidValue() throws {
        let catalog = try TypeCatalog.shared()
        for (offset, type) in catalog.characteristics.enumerated() {
            let characteristic = catalog.makeCharacteristic(type, instanceID: UInt64(offset + 1))
            if let value = characteristic.value {
                #expect(throws: Never.self, "\(type.name)") { try characteristic.validate(value) }
            } else {
                let silent = !type.permissions.contains(.read) || type.name == "programmableSwitchEvent"
                #expect(silent, "\(type.name) is readable but starts without a value")
            }
        }
    }

    @Test func findsTypesByTheWordsPeopleUse() throws {
        let catalog = try TypeCatalog.shared()
        #expect(catalog.service(matching: "Lamp ")?.name == "lightbulb")
        #expect(catalog.service(matching: "  BULB")?.name == "lightbulb")
        #expect(catalog.service(matching: "light")?.name == "lightbulb")
        #expect(catalog.service(matching: "Garage   Door")?.name == "garageDoorOpener")
        #expect(catalog.service(matching: "temperature sensor")?.name == "temperatureSensor")
        #expect(catalog.service(matching: "LOCK")?.name == "lockMechanism")
        #expect(catalog.service(matching: "toaster") == nil)
        #expect(catalog.characteristic(matching: "temp")?.name == "currentTemperature")
        #expect(catalog.characteristic(matching: "Temperature")?.name == "currentTemperature")
        #expect(catalog.characteristic(matching: "power")?.name == "on")
        #expect(catalog.characteristic(matching: "on")?.name == "on")
        #expect(catalog.characteristic(matching: "Current Temperature")?.name == "currentTemperature")
        #expect(catalog.characteristic(named: "currentTemperature")?.displayName == "Current Temperature")
        #expect(catalog.characteristic(named: "CurrentTemperature") == nil)
    }

    @Test func namesTheValuesOfEnumerations() throws {
        let catalog = try TypeCatalog.shared()
        let lock = try #require(catalog.characteristic(named: "lockTargetState"))
        #expect(lock.value(named: "Locked") == 1)
        #expect(lock.value(named: "secured") == 1)
        #expect(lock.value(named: " unlocked ") == 0)
        #expect(lock.value(named: "jammed") == nil)
        #expect(lock.name(of: 0) == "unsecured")
        #expect(lock.name(of: 7) == nil)
        let current = try #require(catalog.characteristic(named: "lockCurrentState"))
        #expect(current.name(of: 2) == "jammed")
    }

    @Test("Records the choices made where sources disagree (hap-protocol.md §14)")
    func recordsChoicesWhereSourcesDisagree() throws {
        let catalog = try TypeCatalog.shared()
        let temperature = try #require(catalog.characteristic(named: "currentTemperature"))
        #expect(temperature.minValue == -270 && temperature.maxValue == 100 && temperature.minStep == 0.1)
        let colorTemperature = try #require(catalog.characteristic(named: "colorTemperature"))
        #expect(colorTemperature.format == .uint32)
        #expect(colorTemperature.minValue == 140 && colorTemperature.maxValue == 500)
        #expect(catalog.characteristic(named: "lockLastKnownAction")?.maxValue == 10)
        #expect(catalog.characteristic(named: "serviceLabelIndex")?.maxValue == 255)
        #expect(catalog.service(named: "outlet")?.requiredCharacteristics == ["on", "outletInUse"])
        for name in ["currentTemperature", "colorTemperature", "lockLastKnownAction", "serviceLabelIndex"] {
            #expect(catalog.characteristic(named: name)?.notes?.contains("§14") == true, "\(name)")
        }
        for name in ["outlet", "batteryService", "lightbulb", "doorbell"] {
            #expect(catalog.service(named: name)?.notes?.contains("§14") == true, "\(name)")
        }
    }
}
