import HAP
import HAPTypes
import Testing

@testable import HAPAccessoryServer

@Suite struct AccessoryServerPairingTests {
    @Test func pairsVerifiesAndServesTheDatabase() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let unpaired = try await accessory.waitForAdvertisement { _ in true }
        #expect(await accessory.server.advertisement == unpaired)
        #expect(unpaired.statusFlags == 1)
        #expect(unpaired.txtRecord.map(\.0) == ["c#", "ff", "id", "md", "pv", "s#", "sf", "ci", "sh"])
        #expect(unpaired.port == accessory.port)

        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        #expect(pairing.deviceID == unpaired.deviceID)
        let paired = try await accessory.waitForAdvertisement { $0.statusFlags == 0 }
        #expect(paired.setupHash == unpaired.setupHash)
        let saved = try #require(await accessory.store.state)
        #expect(saved.pairings.pairings.map(\.isAdmin) == [true])

        let client = try await accessory.verifiedClient(admin, accessory: pairing)
        let response = try await client.request(.get, "/accessories")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/hap+json")
        let database = try HAPJSON.decode(AccessoryDatabase.self, from: .init(response.body))
        #expect(database.accessories.first?.services.count == 2)
        await client.close()
    }

    @Test func answers470BeforePairVerifyAnd404And405() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        let accessories = try await client.request(.get, "/accessories")
        #expect(accessories.status.code == 470)
        #expect(accessories.text == #"{"status":-70411}"#)
        #expect(try await client.request(.get, "/characteristics?id=1.9").status.code == 470)
        #expect(try await client.request(.get, "/nowhere").status.code == 404)
        #expect(try await client.request(.get, "/pair-setup").status.code == 405)
        let identify = try await client.json(.post, "/identify", "{}")
        #expect(identify.status == .noContent)
        #expect(identify.body.isEmpty)
        #expect(await accessory.backend.identifyCount == 1)

        _ = try await accessory.pair()
        let paired = try await client.json(.post, "/identify", "{}")
        #expect(paired.status.code == 400)
        #expect(paired.text == #"{"status":-70401}"#)
        await client.close()
    }

    @Test func refusesAWrongSetupCodeAndPersistsTheFailure() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        await #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 4)) {
            _ = try await client.pairSetup(setupCode: "111-22-333", identity: TestAccessory.newController())
        }
        try await accessory.waitForStoredState { $0.failedAttempts == 1 }
        // A correct code afterwards pairs and resets the count.
        _ = try await client.pairSetup(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        try await accessory.waitForStoredState { $0.failedAttempts == 0 && $0.pairings.isPaired }
        await client.close()
    }

    @Test("State with 100 failed attempts answers MaxTries")
    func refusesAfterAHundredFailures() async throws {
        let store = InMemoryAccessoryStateStore()
        let first = try await TestAccessory.start(store: store)
        await first.stop()
        var state = try #require(await store.state)
        state.failedAttempts = 100
        await store.save(state)
        let accessory = try await TestAccessory.start(store: store)
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        await #expect(throws: PairingFailure.accessoryRefused(.maxTries, state: 2)) {
            _ = try await client.pairSetup(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        }
        await client.close()
    }

    @Test func answersBusyToASecondConcurrentPairSetup() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let first = try await accessory.connect()
        let second = try await accessory.connect()
        var owner = PairSetupController(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        let m2 = try await first.tlv("/pair-setup", owner.start())
        guard case .send = try owner.receive(m2) else { throw TestClientError.unexpected("M2") }
        let other = PairSetupController(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        let busy = try await second.tlv("/pair-setup", other.start())
        #expect(busy[.error] == [PairingError.busy.tlvErrorCode])
        // When the owner goes away the slot is free again.
        await first.close()
        try await accessory.waitForSessionCount(1)
        let retry = PairSetupController(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        let reply = try await second.tlv("/pair-setup", retry.start())
        #expect(reply[.error] == nil)
        await second.close()
    }

    @Test func managesPairingsAndClosesRemovedControllersSessions() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        let adminClient = try await accessory.verifiedClient(admin, accessory: pairing)

        let guest = TestAccessory.newController()
        let add = PairingsRequest.add(
            identifier: Array(guest.pairingID.utf8),
            publicKey: guest.publicKey,
            isAdmin: false
        )
        try PairingsRequest.checkReply(try await adminClient.tlv("/pairings", add))
        let list = try PairingsRequest.pairings(
            inListReply: try await adminClient.tlv("/pairings", PairingsRequest.list())
        )
        #expect(list.count == 2)
        #expect(list.contains { $0.identifier == Array(guest.pairingID.utf8) && !$0.isAdmin })

        let guestClient = try await accessory.verifiedClient(guest, accessory: pairing)
        #expect(try await guestClient.request(.get, "/characteristics?id=1.9").status == .ok)
        // A non-admin may not manage pairings.
        let refused = try await guestClient.tlv("/pairings", PairingsRequest.list())
        #expect(refused[.error] == [PairingError.authentication.tlvErrorCode])

        let remove = PairingsRequest.remove(identifier: Array(guest.pairingID.utf8))
        try PairingsRequest.checkReply(try await adminClient.tlv("/pairings", remove))
        #expect(await guestClient.waitForClose())
        #expect(try await adminClient.request(.get, "/characteristics?id=1.9").status == .ok)

        // Removing the last admin unpairs the accessory: sf=1, and pair-setup works again.
        let removeSelf = PairingsRequest.remove(identifier: Array(admin.pairingID.utf8))
        try PairingsRequest.checkReply(try await adminClient.tlv("/pairings", removeSelf))
        #expect(await adminClient.waitForClose())
        _ = try await accessory.waitForAdvertisement { $0.statusFlags == 1 }
        try await accessory.waitForStoredState { !$0.pairings.isPaired }
        let newAdmin = TestAccessory.newController()
        let again = try await accessory.pair(newAdmin)
        _ = try await accessory.waitForAdvertisement { $0.statusFlags == 0 }
        let client = try await accessory.verifiedClient(newAdmin, accessory: again)
        #expect(try await client.request(.get, "/accessories").status == .ok)
        await client.close()
    }

    @Test func answersUnavailableToPairSetupOncePairedAndAuthenticationToAnUnknownController() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        await #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 2)) {
            try await client.pairVerify(
                identity: TestAccessory.newController(),
                accessory: AccessoryPairing(deviceID: "AA:AA:AA:AA:AA:AA", publicKey: Array(repeating: 1, count: 32))
            )
        }
        let pairing = try await accessory.pair()
        await #expect(throws: PairingFailure.accessoryRefused(.unavailable, state: 2)) {
            _ = try await client.pairSetup(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        }
        await #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 4)) {
            try await client.pairVerify(identity: TestAccessory.newController(), accessory: pairing)
        }
        await client.close()
    }

    @Test func aRefusedPairSetupCostsAPairedAccessoryNoTableOfPowers() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        // Unpaired, the verifier keeps its table: every pair-setup uses it.
        #expect(await accessory.server.pairSetupVerifier()?.hasPowerTable == true)
        _ = try await accessory.pair()
        // Paired, pair-setup is refused at M1: the verifier made for that check has no 768 KiB table to build.
        #expect(await accessory.server.pairSetupVerifier()?.hasPowerTable == false)
        let client = try await accessory.connect()
        await #expect(throws: PairingFailure.accessoryRefused(.unavailable, state: 2)) {
            _ = try await client.pairSetup(setupCode: TestAccessory.setupCode, identity: TestAccessory.newController())
        }
        await client.close()
    }

    @Test func refusesPairSetupAndPairVerifyOnAnEncryptedSession() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        let client = try await accessory.verifiedClient(admin, accessory: pairing)
        let setup = PairSetupController(setupCode: TestAccessory.setupCode, identity: admin).start()
        let response = try await client.request(.post, "/pair-setup", body: setup.encoded(), contentType: .pairingTLV8)
        #expect(response.status.code == 400)
        let verify = try await client.request(.post, "/pair-verify", body: [6, 1, 1], contentType: .pairingTLV8)
        #expect(verify.status.code == 400)
        await client.close()
    }

    @Test func makesANewVerifierWhenTheSetupCodeChangesWhileUnpaired() async throws {
        let store = InMemoryAccessoryStateStore()
        let first = try await TestAccessory.start(store: store)
        await first.stop()
        let before = try #require(await store.state)
        let second = try await TestAccessory.start(store: store, setupCode: "271-82-818")
        defer { Task { await second.stop() } }
        let after = try #require(await store.state)
        #expect(after.deviceID == before.deviceID)
        #expect(after.salt != before.salt)
        #expect(after.verifier != before.verifier)
        let client = try await second.connect()
        _ = try await client.pairSetup(setupCode: "271-82-818", identity: TestAccessory.newController())
        await client.close()
    }
}
