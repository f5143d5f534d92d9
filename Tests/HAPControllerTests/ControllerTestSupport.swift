import Crypto
import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import Logging
import NIOPosix
import Simulator
import TestFixtures
import Testing

@testable import HAPController

/// Clients for the shared test bridge (TestFixtures).
extension SimulatedBridge {
    /// Pairs a new controller and returns a client for the bridge with a fast backoff.
    func pairedClient(
        identity: ControllerIdentity = newIdentity(),
        timeouts: ConnectionTimeouts = ConnectionTimeouts(connect: .seconds(10), request: .seconds(20))
    ) async throws -> PairedAccessory {
        let pairing = try await AccessoryPairingClient().pairSetup(
            host: "127.0.0.1",
            port: port,
            setupCode: try SetupCode(Self.setupCode),
            identity: identity
        )
        return client(for: PairedAccessoryRecord(pairing: pairing, host: "127.0.0.1", port: port), identity: identity)
    }

    func client(
        for record: PairedAccessoryRecord,
        identity: ControllerIdentity,
        timeouts: ConnectionTimeouts = ConnectionTimeouts(connect: .seconds(10), request: .seconds(20))
    ) -> PairedAccessory {
        PairedAccessory(
            record: record,
            identity: identity,
            configuration: PairedAccessory.Configuration(timeouts: timeouts, backoff: fastBackoff()),
            logger: quietLogger()
        )
    }

    /// The id of the first characteristic of `shortType` on accessory `accessoryID`.
    func id(_ shortType: UInt32, accessoryID: UInt64) async throws -> CharacteristicID {
        let database = await simulator.database()
        let accessory = try #require(database.accessory(withID: accessoryID))
        let characteristic = try #require(
            accessory.services.flatMap(\.characteristics).first { $0.type == HAPUUID(apple: shortType) }
        )
        return CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
    }
}

/// A backoff of a few milliseconds with fixed jitter, so reconnect tests take little time.
func fastBackoff() -> ReconnectBackoff {
    ReconnectBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), random: { 0.5 })
}

func quietLogger() -> Logger {
    var logger = Logger(label: "test.controller")
    logger.logLevel = .critical
    return logger
}

func newIdentity() -> ControllerIdentity {
    ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
}

/// The short Apple type ids the tests use.
enum ShortType {
    static let on: UInt32 = 0x25
    static let currentTemperature: UInt32 = 0x11
    static let name: UInt32 = 0x23
}
