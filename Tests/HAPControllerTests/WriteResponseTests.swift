import Foundation
import HAP
import HAPTypes
import Simulator
import TestFixtures
import Testing

@testable import HAPController

/// Write responses (`"r": true`, hap-protocol.md §7) against the simulator's accessory server on real sockets.
@Suite struct WriteResponseTests {
    static let customType = "E863F10D-079E-48FF-8F27-9C2605A29F52"

    /// A bridge with one lightbulb whose service has a custom `wr` characteristic next to its On.
    static func description() throws -> SimulatorDescription {
        let json = """
            {"bridge": {"name": "Write Response Bridge"},
             "accessories": [{"name": "Lamp", "preset": "lightbulb", "services": [
               {"type": "lightbulb", "custom": [{"uuid": "\(customType)", "format": "uint8",
                 "perms": ["pr", "pw", "ev", "wr"], "value": 0, "minValue": 0, "maxValue": 100}]}]}]}
            """
        return try SimulatorDescription(jsonData: Data(json.utf8))
    }

    @Test func aWriteResponseReturnsTheValueTheAccessoryAnswersWith() async throws {
        let bridge = try await SimulatedBridge.start(description: try Self.description())
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let database = try await client.accessories()
        let accessory = try #require(database.accessory(withID: 2))
        let custom = try #require(
            accessory.services.flatMap(\.characteristics).first { $0.type.uuidString == Self.customType }
        )
        #expect(custom.permissions.contains(.writeResponse))
        let customID = CharacteristicID(accessoryID: 2, instanceID: custom.instanceID)
        let on = try await bridge.id(ShortType.on, accessoryID: 2)
        let name = try await bridge.id(ShortType.name, accessoryID: 2)

        let results = try await client.writeWithResponse([(customID, .int(42)), (on, .bool(true))])
        #expect(results[customID] == .success(.uint(42)))
        // On has no `wr`: the write succeeds and nothing comes back.
        #expect(results[on] == .success(nil))
        #expect(try await client.read([customID, on])[customID] == .success(.uint(42)))
        #expect(try await client.read([on])[on] == .success(.bool(true)))

        // A refused item keeps its own status next to the answered one.
        let mixed = try await client.writeWithResponse([(customID, .int(7)), (name, .string("Renamed"))])
        #expect(mixed[customID] == .success(.uint(7)))
        #expect(mixed[name] == .failure(.readOnlyCharacteristic))
        await client.close()
    }

    @Test func anAllNoResponseWriteStillReportsSuccessForEveryItem() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        _ = try await client.accessories()
        let first = try await bridge.id(ShortType.on, accessoryID: 2)
        let second = try await bridge.id(ShortType.on, accessoryID: 3)
        let results = try await client.writeWithResponse([(first, .bool(true)), (second, .bool(false))])
        #expect(results == [first: .success(nil), second: .success(nil)])
        await client.close()
    }
}
