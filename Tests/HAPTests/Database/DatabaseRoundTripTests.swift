import Foundation
import TestSupport
import Testing

@testable import HAP
@testable import HAPTypes

/// Property tests: random databases and request bodies from a seeded generator survive a JSON round trip.
@Suite struct DatabaseRoundTripTests {
    static let baseSeed: UInt64 = 0xC0FF_EE00_0000_0000

    @Test func randomDatabasesSurviveAJSONRoundTrip() throws {
        for iteration in 0..<200 {
            let seed = Self.baseSeed &+ UInt64(iteration)
            var generator = DatabaseGenerator(seed: seed)
            let database = generator.database()
            let data = try HAPJSON.encode(database)
            let decoded = try HAPJSON.decode(AccessoryDatabase.self, from: data)
            #expect(decoded == database, "seed \(String(seed, radix: 16)): \(String(decoding: data, as: UTF8.self))")
            if decoded != database { break }
        }
    }

    @Test func randomReadResponsesSurviveAJSONRoundTrip() throws {
        for iteration in 0..<200 {
            let seed = Self.baseSeed &+ 0x1_0000 &+ UInt64(iteration)
            var generator = DatabaseGenerator(seed: seed)
            let body = generator.readResponse()
            let data = try HAPJSON.encode(body)
            let decoded = try HAPJSON.decode(CharacteristicReadResponse.self, from: data)
            #expect(decoded == body, "seed \(String(seed, radix: 16)): \(String(decoding: data, as: UTF8.self))")
            if decoded != body { break }
        }
    }

    @Test func randomWriteRequestsSurviveAJSONRoundTrip() throws {
        for iteration in 0..<200 {
            let seed = Self.baseSeed &+ 0x2_0000 &+ UInt64(iteration)
            var generator = DatabaseGenerator(seed: seed)
            let body = generator.writeRequest()
            let data = try HAPJSON.encode(body)
            let decoded = try HAPJSON.decode(CharacteristicWriteRequest.self, from: data)
            #expect(decoded == body, "seed \(String(seed, radix: 16)): \(String(decoding: data, as: UTF8.self))")
            if decoded != body { break }
        }
    }

    @Test func randomValuesPassTheirOwnFormatCheck() throws {
        for iteration in 0..<500 {
            let seed = Self.baseSeed &+ 0x3_0000 &+ UInt64(iteration)
            var generator = DatabaseGenerator(seed: seed)
            let format = generator.pick(Format.allCases)
            let value = generator.value(for: format)
            #expect(try value.converted(to: format) == value, "seed \(String(seed, radix: 16)), \(format) \(value)")
        }
    }
}

/// Random database values for property tests, driven by `SplitMix64`.
struct DatabaseGenerator {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func bool() -> Bool { Bool.random(using: &random) }
    mutating func pick<Element>(_ elements: [Element]) -> Element { elements[int(0...(elements.count - 1))] }
    mutating func maybe<Value>(_ make: (inout Self) -> Value) -> Value? { bool() ? make(&self) : nil }

    mutating func database() -> AccessoryDatabase {
        var accessoryIDs = Set<UInt64>()
        let accessories = (0..<int(0...4)).map { _ in
            var id: UInt64
            repeat { id = pick([1, 2, 3, UInt64(int(4...1000)), UInt64.max]) } while !accessoryIDs.insert(id).inserted
            return accessory(id: id)
        }
        return AccessoryDatabase(accessories: accessories)
    }

    mutating func accessory(id: UInt64) -> HAPAccessory {
        var nextID: UInt64 = 1
        var services: [HAPService] = []
        for _ in 0..<int(0...4) {
            let serviceID = nextID
            nextID += 1
            let characteristics = (0..<int(0...6)).map { _ in
                defer { nextID += 1 }
                return characteristic(instanceID: nextID)
            }
            services.append(
                HAPService(
                    instanceID: serviceID,
                    type: type(),
                    isPrimary: bool(),
                    isHidden: bool(),
                    linkedServices: (0..<int(0...2)).map { _ in UInt64(int(1...20)) },
                    characteristics: characteristics
                )
            )
        }
        return HAPAccessory(accessoryID: id, services: services)
    }

    mutating func type() -> HAPUUID {
        if bool() { return HAPUUID(apple: UInt32(truncatingIfNeeded: random.next() >> UInt64(int(0...63)))) }
        let hex = (0..<32).map { _ in pick(Array("0123456789ABCDEF")) }
        var text = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { text.append("-") }
            text.append(character)
        }
        return (try? HAPUUID(text)) ?? HAPUUID(apple: 0x25)
    }

    mutating func characteristic(instanceID: UInt64) -> HAPCharacteristic {
        let format = pick(Format.allCases)
        return HAPCharacteristic(
            instanceID: instanceID,
            type: type(),
            permissions: Permission.allCases.filter { _ in bool() },
            format: format,
            value: maybe { $0.value(for: format) },
            isNotifying: maybe { $0.bool() },
            description: maybe { $0.string() },
            unit: maybe { $0.pick(Unit.allCases) },
            minValue: maybe { $0.double() },
            maxValue: maybe { $0.double() },
            minStep: maybe { $0.double() },
            maxLength: maybe { $0.int(1...256) },
            maxDataLength: maybe { $0.int(1...2_097_152) },
            validValues: maybe { generator in (0..<generator.int(0...4)).map { _ in generator.int(-5...300) } },
            validValuesRange: maybe { generator in
                let low = generator.int(-100...100)
                return low...(low + generator.int(0...100))
            }
        )
    }

    mutating func double() -> Double {
        switch int(0...4) {
        case 0: Double(int(-1000...1000))
        case 1: Double(int(-100_000...100_000)) / 10
        case 2: Double.random(in: -1e6...1e6, using: &random)
        case 3: Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (bool() ? 1 : -1)
        default: pick([0, 0.1, 0.0001, 100_000, -270, 1e300, .leastNonzeroMagnitude])
        }
    }

    mutating func string() -> String {
        let alphabet: [Character] = Array("aZ09 \"\\/\n\t\u{0}é€😀{}[]:,") + ["\u{1F3E0}", "\r\n"]
        return String((0..<int(0...20)).map { _ in pick(alphabet) })
    }

    mutating func value(for format: Format) -> HAPValue {
        switch format {
        case .bool: .bool(bool())
        case .uint8: .uint(UInt64(int(0...255)))
        case .uint16: .uint(UInt64(int(0...65535)))
        case .uint32: .uint(UInt64(int(0...Int(UInt32.max))))
        case .uint64: .uint(bool() ? random.next() : UInt64(int(0...10)))
        case .int: .int(Int64(int(Int(Int32.min)...Int(Int32.max))))
        case .float: .float(double())
        case .string: .string(string())
        case .tlv8, .data: .data((0..<int(0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
    }

    /// A value whose JSON reads back as the same case without a format.
    mutating func formatFreeValue() -> HAPValue {
        switch int(0...4) {
        case 0: .bool(bool())
        case 1: .int(Int64(bitPattern: random.next()))
        case 2: .uint(UInt64(Int64.max) + 1 + random.next() / 2)
        case 3: .float(Double(int(-100_000...100_000)) / 10 + 0.05)
        default: .string(string())
        }
    }

    mutating func readResponse() -> CharacteristicReadResponse {
        let items = (0..<int(0...6)).map { _ in
            var item = CharacteristicReadResponse.Item(
                accessoryID: UInt64(int(1...150)),
                instanceID: UInt64(int(1...5000)),
                status: maybe { $0.pick(HAPStatus.allCases) }
            )
            if bool() {
                let format = pick(Format.allCases)
                item.format = format
                item.value = maybe { $0.value(for: format) }
                item.unit = maybe { $0.pick(Unit.allCases) }
                item.minValue = maybe { $0.double() }
                item.maxValue = maybe { $0.double() }
                item.minStep = maybe { $0.double() }
                item.maxLength = maybe { $0.int(1...256) }
                item.maxDataLength = maybe { $0.int(1...4096) }
                item.description = maybe { $0.string() }
                item.validValues = maybe { generator in (0..<generator.int(0...4)).map { _ in generator.int(-5...300) }
                }
                item.validValuesRange = maybe { generator in
                    let low = generator.int(-100...100)
                    return low...(low + generator.int(0...100))
                }
            } else {
                item.value = maybe { $0.formatFreeValue() }
            }
            item.includesNullValue = item.value == nil && bool()
            item.isNotifying = maybe { $0.bool() }
            item.type = maybe { $0.type() }
            item.permissions = maybe { generator in Permission.allCases.filter { _ in generator.bool() } }
            return item
        }
        return CharacteristicReadResponse(characteristics: items)
    }

    mutating func writeRequest() -> CharacteristicWriteRequest {
        let items = (0..<int(0...6)).map { _ in
            CharacteristicWriteRequest.Item(
                accessoryID: UInt64(int(1...150)),
                instanceID: UInt64(int(1...5000)),
                value: maybe { $0.formatFreeValue() },
                events: maybe { $0.bool() },
                requestsResponse: maybe { $0.bool() },
                authorizationData: maybe { generator in
                    (0..<generator.int(0...20)).map { _ in UInt8(truncatingIfNeeded: generator.random.next()) }
                },
                isRemote: maybe { $0.bool() }
            )
        }
        return CharacteristicWriteRequest(characteristics: items, preparedWriteID: maybe { $0.random.next() })
    }
}
