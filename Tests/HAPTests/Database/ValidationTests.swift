import Testing

@testable import HAP
@testable import HAPTypes

@Suite struct ValidationTests {
    static let brightness = HAPCharacteristic(
        instanceID: 10,
        type: HAPUUID(apple: 0x8),
        permissions: [.read, .write, .notify],
        format: .int,
        value: .int(50),
        unit: .percentage,
        minValue: 0,
        maxValue: 100,
        minStep: 1
    )
    static let targetTemperature = HAPCharacteristic(
        instanceID: 11,
        type: HAPUUID(apple: 0x35),
        permissions: [.read, .write, .notify],
        format: .float,
        minValue: 10,
        maxValue: 38,
        minStep: 0.1
    )

    static func plain(_ format: Format, permissions: [Permission] = [.read, .write]) -> HAPCharacteristic {
        HAPCharacteristic(instanceID: 1, type: HAPUUID(apple: 0x99), permissions: permissions, format: format)
    }

    @Test func acceptsValuesOnTheBoundaries() throws {
        try Self.brightness.validate(.int(0))
        try Self.brightness.validate(.int(100))
        try Self.targetTemperature.validate(.float(10))
        try Self.targetTemperature.validate(.float(38))
        try Self.targetTemperature.validate(.float(22.3))
        // ADK stores 32-bit floats: 22.3 comes back slightly off the grid and must still pass.
        try Self.targetTemperature.validate(.float(Double(Float(22.3))))
    }

    @Test func rejectsValuesOutsideMinimumAndMaximum() {
        #expect(throws: ValueError.belowMinimum(value: -1, minimum: 0, maximum: 100)) {
            try Self.brightness.validate(.int(-1))
        }
        #expect(throws: ValueError.aboveMaximum(value: 101, minimum: 0, maximum: 100)) {
            try Self.brightness.validate(.int(101))
        }
        #expect(throws: ValueError.aboveMaximum(value: 38.1, minimum: 10, maximum: 38)) {
            try Self.targetTemperature.validate(.float(38.1))
        }
    }

    @Test func rejectsValuesOffTheStepGrid() {
        #expect(throws: ValueError.offStep(value: 22.35, base: 10, step: 0.1)) {
            try Self.targetTemperature.validate(.float(22.35))
        }
        var stepped = Self.brightness
        stepped.minStep = 5
        stepped.minValue = 2
        #expect(throws: ValueError.offStep(value: 10, base: 2, step: 5)) { try stepped.validate(.int(10)) }
        #expect(throws: Never.self) { try stepped.validate(.int(12)) }
    }

    @Test("Checks string length against maxLen, 64 by default and 256 at most")
    func checksStringLength() {
        let name = Self.plain(.string)
        #expect(throws: Never.self) { try name.validate(.string(String(repeating: "a", count: 64))) }
        #expect(throws: ValueError.stringTooLong(length: 65, maximum: 64)) {
            try name.validate(.string(String(repeating: "a", count: 65)))
        }
        // Length counts UTF-8 bytes: 22 × "€" is 66 bytes.
        #expect(throws: ValueError.stringTooLong(length: 66, maximum: 64)) {
            try name.validate(.string(String(repeating: "€", count: 22)))
        }
        var long = name
        long.maxLength = 1000
        #expect(throws: Never.self) { try long.validate(.string(String(repeating: "a", count: 256))) }
        #expect(throws: ValueError.stringTooLong(length: 257, maximum: 256)) {
            try long.validate(.string(String(repeating: "a", count: 257)))
        }
        var short = name
        short.maxLength = 3
        #expect(throws: ValueError.stringTooLong(length: 4, maximum: 3)) { try short.validate(.string("abcd")) }
    }

    @Test func checksDataLength() {
        var data = Self.plain(.data)
        #expect(throws: Never.self) { try data.validate(.data(Array(repeating: 0, count: 1000))) }
        data.maxDataLength = 4
        #expect(throws: ValueError.dataTooLong(length: 5, maximum: 4)) { try data.validate(.data([1, 2, 3, 4, 5])) }
        #expect(throws: ValueError.dataTooLong(length: 2_097_153, maximum: 2_097_152)) {
            try Self.plain(.data).validate(.data(Array(repeating: 0, count: 2_097_153)))
        }
    }

    @Test func checksValidValuesAndValidRange() {
        var lock = Self.plain(.uint8)
        lock.validValues = [0, 1]
        #expect(throws: Never.self) { try lock.validate(.uint(1)) }
        #expect(throws: ValueError.notAValidValue(value: .uint(2), validValues: [0, 1])) {
            try lock.validate(.uint(2))
        }
        var ranged = Self.plain(.int)
        ranged.validValuesRange = 2...4
        #expect(throws: Never.self) { try ranged.validate(.int(4)) }
        #expect(throws: ValueError.outsideValidRange(value: .int(5), range: 2...4)) { try ranged.validate(.int(5)) }
        #expect(throws: ValueError.outsideValidRange(value: .int(1), range: 2...4)) { try ranged.validate(.int(1)) }
    }

    @Test("Checks integer format ranges: uint8 256, int32 overflow, negative unsigned")
    func checksIntegerFormatRanges() {
        #expect(throws: Never.self) { try Self.plain(.uint8).validate(.uint(255)) }
        #expect(throws: ValueError.outOfFormatRange(format: .uint8, value: .uint(256))) {
            try Self.plain(.uint8).validate(.uint(256))
        }
        #expect(throws: ValueError.outOfFormatRange(format: .uint16, value: .uint(65536))) {
            try Self.plain(.uint16).validate(.uint(65536))
        }
        #expect(throws: ValueError.outOfFormatRange(format: .uint32, value: .uint(4_294_967_296))) {
            try Self.plain(.uint32).validate(.uint(4_294_967_296))
        }
        #expect(throws: Never.self) { try Self.plain(.uint64).validate(.uint(UInt64.max)) }
        #expect(throws: Never.self) { try Self.plain(.int).validate(.int(Int64(Int32.max))) }
        #expect(throws: Never.self) { try Self.plain(.int).validate(.int(Int64(Int32.min))) }
        #expect(throws: ValueError.outOfFormatRange(format: .int, value: .int(2_147_483_648))) {
            try Self.plain(.int).validate(.int(2_147_483_648))
        }
        #expect(throws: ValueError.outOfFormatRange(format: .int, value: .int(-2_147_483_649))) {
            try Self.plain(.int).validate(.int(-2_147_483_649))
        }
        #expect(throws: ValueError.outOfFormatRange(format: .uint8, value: .int(-1))) {
            try Self.plain(.uint8).normalized(.int(-1))
        }
    }

    @Test func rejectsNaNAndInfinity() {
        #expect(throws: ValueError.self) { try Self.plain(.float).validate(.float(.nan)) }
        #expect(throws: ValueError.notFinite(.infinity)) { try Self.plain(.float).validate(.float(.infinity)) }
        #expect(throws: ValueError.notFinite(-.infinity)) { try Self.plain(.uint8).normalized(.float(-.infinity)) }
    }

    @Test func rejectsTheWrongJSONType() {
        #expect(throws: ValueError.typeMismatch(format: .bool, value: .string("true"))) {
            try Self.plain(.bool).normalized(.string("true"))
        }
        #expect(throws: ValueError.typeMismatch(format: .string, value: .int(5))) {
            try Self.plain(.string).normalized(.int(5))
        }
        #expect(throws: ValueError.typeMismatch(format: .uint8, value: .bool(true))) {
            try Self.plain(.uint8).normalized(.bool(true))
        }
        #expect(throws: ValueError.notWhole(format: .int, value: 1.5)) { try Self.plain(.int).normalized(.float(1.5)) }
        #expect(throws: ValueError.invalidBase64(format: .tlv8)) { try Self.plain(.tlv8).normalized(.string("%%")) }
        // validate wants the format's own representation; normalized converts first.
        #expect(throws: ValueError.typeMismatch(format: .bool, value: .int(1))) {
            try Self.plain(.bool).validate(.int(1))
        }
    }

    @Test func aNumberBeyondTheFormatNamesTheCharacteristicsOwnRange() {
        #expect(throws: ValueError.aboveMaximum(value: 1e308, minimum: 0, maximum: 100)) {
            try Self.brightness.normalized(.float(1e308))
        }
        #expect(throws: ValueError.belowMinimum(value: -1e12, minimum: 0, maximum: 100)) {
            try Self.brightness.validate(.int(-1_000_000_000_000))
        }
        let message = ValueError.aboveMaximum(value: 1e308, minimum: 0, maximum: 100).message(naming: "Brightness")
        #expect(message.contains("0") && message.contains("100") && !message.contains("2147483647"), "\(message)")
        // Without limits of its own, the format's range is the one to name.
        #expect(throws: ValueError.outOfFormatRange(format: .int, value: .int(2_147_483_648))) {
            try Self.plain(.int).normalized(.int(2_147_483_648))
        }
    }

    @Test func normalisesTheFormsHAPTolerates() throws {
        #expect(try Self.plain(.bool).normalized(.int(1)) == .bool(true))
        #expect(try Self.plain(.bool).normalized(.uint(0)) == .bool(false))
        #expect(throws: ValueError.outOfFormatRange(format: .bool, value: .int(2))) {
            try Self.plain(.bool).normalized(.int(2))
        }
        #expect(try Self.plain(.uint8).normalized(.int(7)) == .uint(7))
        #expect(try Self.plain(.uint8).normalized(.float(7)) == .uint(7))
        #expect(try Self.plain(.int).normalized(.uint(7)) == .int(7))
        #expect(try Self.plain(.float).normalized(.int(21)) == .float(21))
        #expect(try Self.plain(.data).normalized(.string("AQID")) == .data([1, 2, 3]))
        #expect(try Self.brightness.normalized(.float(75)) == .int(75))
        #expect(throws: ValueError.aboveMaximum(value: 101, minimum: 0, maximum: 100)) {
            try Self.brightness.normalized(.uint(101))
        }
    }

    @Test func checksPermissionsForReadWriteAndNotify() throws {
        let writeOnly = Self.plain(.bool, permissions: [.write])
        #expect(throws: ValueError.notReadable(writeOnly.type)) { try writeOnly.readValue() }
        let readOnly = Self.plain(.bool, permissions: [.read])
        #expect(throws: ValueError.notWritable(readOnly.type)) { try readOnly.checkWritable() }
        #expect(throws: ValueError.notificationNotSupported(readOnly.type)) { try readOnly.checkNotifiable() }
        #expect(try Self.brightness.readValue() == .int(50))
        try Self.brightness.checkWritable()
        try Self.brightness.checkNotifiable()
        try Self.brightness.checkVisibleToUsers()
    }

    @Test func requiresATimedWriteAndAuthorizationDataWhenAsked() throws {
        let timed = Self.plain(.uint8, permissions: [.read, .write, .timedWrite])
        #expect(throws: ValueError.timedWriteRequired(timed.type)) { try timed.checkWritable() }
        try timed.checkWritable(isTimedWrite: true)
        let authorized = Self.plain(.uint8, permissions: [.write, .additionalAuthorization])
        #expect(throws: ValueError.authorizationDataRequired(authorized.type)) { try authorized.checkWritable() }
        try authorized.checkWritable(hasAuthorizationData: true)
        let hidden = Self.plain(.uint8, permissions: [.read, .hidden])
        #expect(throws: ValueError.hidden(hidden.type)) { try hidden.checkVisibleToUsers() }
    }

    @Test func readsProgrammableSwitchEventAsNull() throws {
        var button = Self.plain(.uint8, permissions: [.read, .notify])
        button.type = HAPUUID(apple: 0x73)
        button.value = .uint(1)
        #expect(try button.readValue() == nil)
    }

    @Test func mapsEachFailureToItsHAPStatus() {
        let type = HAPUUID(apple: 0x25)
        #expect(ValueError.belowMinimum(value: 0, minimum: 1, maximum: nil).hapStatus == .invalidValueInRequest)
        #expect(ValueError.typeMismatch(format: .bool, value: .string("")).hapStatus == .invalidValueInRequest)
        #expect(ValueError.stringTooLong(length: 65, maximum: 64).hapStatus.rawValue == -70410)
        #expect(ValueError.notWritable(type).hapStatus.rawValue == -70404)
        #expect(ValueError.notReadable(type).hapStatus.rawValue == -70405)
        #expect(ValueError.notificationNotSupported(type).hapStatus.rawValue == -70406)
        #expect(ValueError.timedWriteRequired(type).hapStatus.rawValue == -70410)
        #expect(ValueError.authorizationDataRequired(type).hapStatus.rawValue == -70411)
        #expect(ValueError.hidden(type).hapStatus.rawValue == -70401)
    }
}
