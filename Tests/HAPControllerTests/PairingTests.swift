import Foundation
import HAP
import HAPAccessoryServer
import TestFixtures
import Testing

@testable import HAPController

@Suite struct PairingTests {
    @Test func addsListsAndRemovesASecondPairing() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let admin = newIdentity()
        let client = try await bridge.pairedClient(identity: admin)
        let guest = newIdentity()
        try await client.addPairing(identifier: guest.pairingID, publicKey: guest.publicKey, isAdmin: false)
        let listed = try await client.listPairings()
        #expect(Set(listed) == [admin.pairing(isAdmin: true), guest.pairing(isAdmin: false)])

        let guestClient = bridge.client(for: client.record, identity: guest)
        let on = try await bridge.id(ShortType.on, accessoryID: 2)
        #expect(try await guestClient.read([on])[on] != nil)
        await #expect(throws: HAPControllerError.pairingRefused(.authentication)) {
            try await guestClient.listPairings()
        }
        await guestClient.close()

        try await client.removePairing(identifier: guest.pairingID)
        #expect(try await client.listPairings() == [admin.pairing(isAdmin: true)])
        await client.close()
    }

    @Test func unpairRemovesOurPairingSoTheAccessoryCanBePairedAgain() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        try await client.unpair()
        #expect(await bridge.server.pairings.isPaired == false)
        await #expect(throws: HAPControllerError.closed) { try await client.accessories() }
        let again = try await bridge.pairedClient()
        #expect(try await again.accessories().accessories.count == 5)
        await again.close()
    }

    @Test func aForgottenControllerFailsVerification() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let admin = newIdentity()
        let client = try await bridge.pairedClient(identity: admin)
        let stranger = bridge.client(for: client.record, identity: newIdentity())
        do {
            _ = try await stranger.accessories()
            Issue.record("a controller the accessory does not know was verified")
        } catch {
            #expect(error == .verificationFailed(.accessoryRefused(.authentication, state: 4)))
        }
        await stranger.close()
        await client.close()
    }

    @Test("a wrong setup code costs the accessory one of its 100 tries, not two (issue 20)")
    func aWrongCodeCostsTheAccessoryOneTry() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        // Our accessory never sends a B with a leading zero byte and the controller draws a until A, S and K have
        // none, so padding never explains the refusal: each wrong code is reported at once.
        for attempt in 1...3 {
            await #expect(throws: HAPControllerError.wrongSetupCode) {
                try await AccessoryPairingClient().pairSetup(
                    host: "127.0.0.1",
                    port: bridge.port,
                    setupCode: try SetupCode("111-22-333"),
                    identity: newIdentity()
                )
            }
            #expect(await bridge.store.state?.failedAttempts == attempt)
        }
        // The right code still pairs, and resets the count.
        _ = try await AccessoryPairingClient().pairSetup(
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            identity: newIdentity()
        )
        #expect(await bridge.store.state?.failedAttempts == 0)
    }

    @Test func aPairedAccessoryIsReportedAsPairedWithAnotherController() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        await #expect(throws: HAPControllerError.alreadyPaired) {
            try await AccessoryPairingClient().pairSetup(
                host: "127.0.0.1",
                port: bridge.port,
                setupCode: try SetupCode(SimulatedBridge.setupCode),
                identity: newIdentity()
            )
        }
        await client.close()
    }

    @Test func anUnreachableAccessoryIsReportedAsSuch() async throws {
        // Port 1 on 127.0.0.1 has no listener: the connection is refused at once.
        await #expect(throws: HAPControllerError.unreachable(host: "127.0.0.1", port: 1)) {
            try await AccessoryPairingClient().identifyUnpaired(host: "127.0.0.1", port: 1)
        }
    }
}
