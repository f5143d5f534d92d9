import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import HomeGraph
import Logging
import Simulator
import TestFixtures

extension SimulatedBridge {
    /// The API tests' bridge: two dimmable lights, a lock and a temperature sensor.
    static func startForAPI() async throws -> SimulatedBridge {
        try await start(
            description: SimulatorDescription(
                bridgeName: "Test Bridge",
                presets: [
                    PresetRequest(preset: .lightbulbDimmable, count: 2), PresetRequest(preset: .doorLock),
                    PresetRequest(preset: .temperatureSensor),
                ]
            )
        )
    }

    /// The value the simulator has now for `characteristic` of `accessory`.
    func value(of characteristic: Characteristic, on accessory: Accessory) async -> HAPValue? {
        let id = CharacteristicID(accessoryID: accessory.accessoryInstanceID, instanceID: characteristic.instanceID)
        guard case .success(let value) = await simulator.read([id])[id] else { return nil }
        return value
    }
}

/// Short Apple type ids the tests use.
enum ShortType {
    static let on = HAPUUID(apple: 0x25)
    static let brightness = HAPUUID(apple: 0x08)
    static let lockTarget = HAPUUID(apple: 0x1E)
}

extension Home {
    /// The accessory named `name` and its first characteristic of `type`.
    func find(_ type: HAPUUID, on name: String) -> (accessory: Accessory, characteristic: Characteristic)? {
        guard let accessory = accessories.first(where: { $0.name == name }),
            let characteristic = accessory.characteristics.first(where: { $0.type == type })
        else { return nil }
        return (accessory, characteristic)
    }
}
