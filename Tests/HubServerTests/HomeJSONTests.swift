import Foundation
import HAPTypes
import HearthAPI
import HomeGraph
import Testing

@testable import HubServer

/// The home document written directly (`GET /v1/homes/{id}`) is byte for byte what Foundation's encoder writes,
/// whatever names, limits and values the accessories have.
@Suite struct HomeJSONTests {
    /// Names no person would choose but an accessory may send: quotes, backslashes, slashes, every control
    /// character, non-ASCII text and emoji.
    static let awkwardNames: [String] = [
        "", "Lamp", "Say \"hi\"", #"back\slash"#, "a/b//c", "tab\there", "line\nbreak\r\n",
        String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }), "Küche – Licht", "💡 lamp", "\u{7F}\u{2028}",
    ]

    static let values: [HAPValue?] = [
        nil, .bool(true), .bool(false), .int(-40), .int(-2_147_483_648), .uint(.max), .float(21.5), .float(20),
        .float(-0.0), .float(1e-7), .float(1e21), .float(0.1 + 0.2), .string("a \"quoted\"/path\n"),
        .data([0, 1, 2, 250, 255]), .data([]),
    ]

    /// A format that takes `value`, so the document reads back.
    static func format(of value: HAPValue?) -> Format {
        switch value {
        case .bool: .bool
        case .int: .int
        case .uint: .uint64
        case .float, nil: .float
        case .string: .string
        case .data: .data
        }
    }

    static func characteristic(_ value: HAPValue?, _ index: Int) -> Characteristic {
        let full = CharacteristicMetadata(
            description: awkwardNames[index % awkwardNames.count],
            unit: .celsius,
            minValue: -40.5,
            maxValue: 100,
            minStep: 0.1,
            maxLength: 64,
            maxDataLength: 2048,
            validValues: [0, 1, 3],
            validValuesRange: -1...7
        )
        return Characteristic(
            id: UUID(),
            type: index.isMultiple(of: 2) ? HAPUUID(apple: 0x25) : HAPUUID(apple: 0x1_0000 + UInt32(index)),
            instanceID: UInt64(index) * 1_000_003,
            format: format(of: value),
            permissions: index.isMultiple(of: 3) ? [] : [.read, .write, .notify, .hidden],
            metadata: index.isMultiple(of: 2) ? full : CharacteristicMetadata(minStep: 1),
            value: value,
            isNotificationEnabled: index.isMultiple(of: 5)
        )
    }

    static func home() throws -> Home {
        let room = Room(id: UUID(), name: "Living / Dining \"room\"")
        var home = Home(
            id: UUID(),
            name: "Home \u{1}",
            roomForEntireHome: Room(id: UUID(), name: "Default Room"),
            rooms: [room]
        )
        let bridgeID = UUID()
        for (index, name) in awkwardNames.enumerated() {
            let services = (0..<3).map { number in
                Service(
                    id: UUID(),
                    name: awkwardNames[(index + number) % awkwardNames.count],
                    type: HAPUUID(apple: 0x43 + UInt32(number)),
                    instanceID: UInt64(number),
                    isPrimary: number == 0,
                    isHidden: number == 2,
                    characteristics: values.enumerated().map { characteristic($0.element, $0.offset + index) }
                )
            }
            home.accessories.append(
                Accessory(
                    id: UUID(),
                    name: name,
                    roomID: index.isMultiple(of: 2) ? room.id : home.roomForEntireHome.id,
                    category: index.isMultiple(of: 2) ? .lightbulb : .bridge,
                    manufacturer: awkwardNames[(index + 1) % awkwardNames.count],
                    model: "Model/\(index)",
                    serialNumber: "SN\\\(index)",
                    firmwareRevision: "1.\(index)",
                    isReachable: index.isMultiple(of: 3),
                    bridgeID: index == 0 ? nil : bridgeID,
                    deviceID: index.isMultiple(of: 2) ? try DeviceID("AA:BB:CC:DD:EE:0\(index % 10)") : nil,
                    accessoryInstanceID: UInt64(index + 1),
                    services: index == 1 ? [] : services
                )
            )
        }
        return home
    }

    @Test func theHomeDocumentIsTheEncodersBytes() throws {
        let home = try Self.home()
        for (role, sequence) in [(UserRole.owner, UInt64(0)), (.shared, .max), (.administrator, 1_000_123)] {
            let response = HomeResponse(home: home, role: role, sequence: sequence)
            let direct = try #require(JSONBody.directJSON(of: response))
            let encoded = try JSONEncoder.api.encode(response)
            #expect(String(decoding: direct, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
            #expect(try JSONDecoder.api.decode(HomeResponse.self, from: direct) == response)
        }
    }

    @Test func aHomeWithoutAccessoriesIsTheEncodersBytesToo() throws {
        let home = Home(id: UUID(), name: "Empty", roomForEntireHome: Room(id: UUID(), name: "Default Room"))
        let response = HomeResponse(home: home, role: .owner, sequence: 7)
        let direct = try #require(JSONBody.directJSON(of: response))
        #expect(direct == (try JSONEncoder.api.encode(response)))
    }

    @Test func aValueTheEncoderRefusesIsLeftToIt() throws {
        var home = try Self.home()
        home.accessories[0].services[0].characteristics[0].value = .float(.nan)
        #expect(JSONBody.directJSON(of: HomeResponse(home: home, role: .owner, sequence: 1)) == nil)
        home.accessories[0].services[0].characteristics[0].value = .float(1)
        home.accessories[0].services[0].characteristics[0].metadata.maxValue = .infinity
        #expect(JSONBody.directJSON(of: HomeResponse(home: home, role: .owner, sequence: 1)) == nil)
    }
}
