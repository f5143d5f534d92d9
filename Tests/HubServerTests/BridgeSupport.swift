import Foundation
import HAP
import HAPAccessoryServer
import HomeGraph
import Logging
import Simulator

/// A real accessory server on 127.0.0.1 serving simulated accessories (two dimmable lights, a lock, a sensor).
struct SimulatedBridge {
    static let setupCode = "031-45-154"

    let server: AccessoryServer
    let simulator: SimulatedAccessories
    let port: Int

    static func start() async throws -> SimulatedBridge {
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(
                bridgeName: "Test Bridge",
                presets: [
                    PresetRequest(preset: .lightbulbDimmable, count: 2), PresetRequest(preset: .doorLock),
                    PresetRequest(preset: .temperatureSensor),
                ]
            )
        )
        var logger = Logger(label: "test.bridge")
        logger.logLevel = .critical
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Test Bridge",
                model: "TB1",
                category: .bridge,
                host: "127.0.0.1",
                port: 0,
                eventCoalescingWindow: .zero,
                setupCode: try SetupCode(setupCode)
            ),
            backend: simulator,
            store: InMemoryAccessoryStateStore(),
            logger: logger
        )
        let port = try await server.start()
        return SimulatedBridge(server: server, simulator: simulator, port: port)
    }

    func stop() async {
        await server.stop()
    }

    /// The value the simulator has now for `characteristic` of `accessory`.
    func value(of characteristic: HomeCharacteristic, on accessory: HomeAccessory) async -> HAPValue? {
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
    func find(_ type: HAPUUID, on name: String) -> (accessory: HomeAccessory, characteristic: HomeCharacteristic)? {
        guard let accessory = accessories.first(where: { $0.name == name }),
            let characteristic = accessory.characteristics.first(where: { $0.type == type })
        else { return nil }
        return (accessory, characteristic)
    }
}
