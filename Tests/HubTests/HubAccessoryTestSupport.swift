import Crypto
import Foundation
import HAP
import HAPAccessoryServer
import HAPController
import HAPTypes
import HomeGraph
import Hub
import Logging
import Simulator
import Testing

func quietLogger() -> Logger {
    var logger = Logger(label: "test.hub")
    logger.logLevel = .critical
    return logger
}

/// A backoff of a few milliseconds with fixed jitter, so reconnect tests take little time.
func fastBackoff() -> ReconnectBackoff {
    ReconnectBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(300), random: { 0.5 })
}

/// A hub configuration for tests: quiet, fast reconnects, generous request timeouts, no browsing.
func testConfiguration(folder: String) -> Hub.Configuration {
    Hub.Configuration(
        stateFolder: folder,
        logger: quietLogger(),
        accessoryLinks: PairedAccessory.Configuration(
            timeouts: ConnectionTimeouts(connect: .seconds(5), request: .seconds(30)),
            backoff: fastBackoff()
        ),
        pairingTimeouts: ConnectionTimeouts(connect: .seconds(10), request: .seconds(30))
    )
}

/// A fresh state folder.
func temporaryFolder() -> String {
    NSTemporaryDirectory() + "hub-accessories-\(UUID().uuidString)"
}

/// The short Apple type ids the tests use.
enum ShortType {
    static let on = HAPUUID(apple: 0x25)
    static let brightness = HAPUUID(apple: 0x08)
    static let currentTemperature = HAPUUID(apple: 0x11)
}

extension Home {
    /// The first characteristic of `type` on the accessory named `name`.
    func characteristic(_ type: HAPUUID, ofAccessoryNamed name: String) throws -> Characteristic {
        let accessory = try #require(accessories.first { $0.name == name }, "no accessory \(name)")
        return try #require(accessory.characteristics.first { $0.type == type }, "no \(type) on \(name)")
    }

    /// The accessory with this id.
    func accessory(_ id: UUID) -> Accessory? { accessories.first { $0.id == id } }
}

extension HomeEvent {
    /// Whether this event says `characteristic` now has `value`.
    func isValue(_ value: HAPValue, of characteristic: UUID) -> Bool {
        guard case .characteristicValueChanged(let id, _, let new) = change else { return false }
        return id == characteristic && new == value
    }
}
