import Crypto
import HAP
import Testing

@Suite struct PairVerifyTests {
    /// Runs pair-verify between the two machines and returns both sides' keys, or the controller's failure.
    static func run(
        accessory: inout PairVerifyAccessory,
        controller: inout PairVerifyController
    ) throws -> (accessory: SessionKeys?, controller: SessionKeys?, lastAction: PairVerifyAccessory.Action?) {
        var request = controller.start()
        var accessoryKeys: SessionKeys?
        var lastAction: PairVerifyAccessory.Action?
        for _ in 0..<2 {
            let action = accessory.receive(request)
            lastAction = action
            let reply: TLV8
            switch action {
            case .reply(let body): reply = body
            case .replyAndEncrypt(let body, let keys, _):
                reply = body
                accessoryKeys = keys
            case .replyAndClose(let body, _): reply = body
            }
            switch try controller.receive(reply) {
            case .send(let next): request = next
            case .established(let keys): return (accessoryKeys, keys, lastAction)
            }
        }
        return (accessoryKeys, nil, lastAction)
    }

    @Test func establishesMatchingSessionKeysOnBothSides() throws {
        let paired = try PairingFixtures.pairedPair()
        var accessory = PairVerifyAccessory(identity: paired.accessory, pairings: paired.table)
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        let result = try Self.run(accessory: &accessory, controller: &controller)
        var accessoryCipher = SessionCipher(keys: try #require(result.accessory), role: .accessory)
        var controllerCipher = SessionCipher(keys: try #require(result.controller), role: .controller)
        // What one side seals the other opens, in both directions.
        let request = Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)
        #expect(try accessoryCipher.open(controllerCipher.seal(request)) == request)
        let response = Array("HTTP/1.1 200 OK\r\n\r\n".utf8)
        #expect(try controllerCipher.open(accessoryCipher.seal(response)) == response)
        guard case .replyAndEncrypt(_, _, let controllerPairing) = result.lastAction else {
            Issue.record("expected an encrypted session")
            return
        }
        #expect(controllerPairing == paired.controller.pairing(isAdmin: true))
    }

    @Test func refusesAControllerItDoesNotKnow() throws {
        let paired = try PairingFixtures.pairedPair()
        var accessory = PairVerifyAccessory(identity: paired.accessory, pairings: paired.table)
        var stranger = PairVerifyController(identity: PairingFixtures.controllerIdentity(), accessory: paired.record)
        #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 4)) {
            _ = try Self.run(accessory: &accessory, controller: &stranger)
        }
    }

    @Test func refusesEveryControllerWhileUnpaired() throws {
        let paired = try PairingFixtures.pairedPair()
        var accessory = PairVerifyAccessory(identity: paired.accessory, pairings: PairingTable())
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 2)) {
            _ = try Self.run(accessory: &accessory, controller: &controller)
        }
    }

    @Test func controllerRefusesAnImpostorWithAnotherLongTermKey() throws {
        let paired = try PairingFixtures.pairedPair()
        // Same device ID, another key: it cannot sign as the accessory paired earlier.
        let impostor = AccessoryIdentity(deviceID: paired.accessory.deviceID, signingKey: .init())
        var accessory = PairVerifyAccessory(identity: impostor, pairings: paired.table)
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        #expect(throws: PairingFailure.invalidSignature) {
            _ = try Self.run(accessory: &accessory, controller: &controller)
        }
    }

    @Test func controllerRefusesAnAccessoryWithAnotherDeviceID() throws {
        let paired = try PairingFixtures.pairedPair()
        let other = AccessoryIdentity(deviceID: "11:22:33:44:55:66", signingKey: paired.accessory.signingKey)
        var accessory = PairVerifyAccessory(identity: other, pairings: paired.table)
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        #expect(throws: PairingFailure.unexpectedAccessory) {
            _ = try Self.run(accessory: &accessory, controller: &controller)
        }
    }

    @Test func refusesATamperedM3() throws {
        let paired = try PairingFixtures.pairedPair()
        var accessory = PairVerifyAccessory(identity: paired.accessory, pairings: paired.table)
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        guard case .reply(let m2) = accessory.receive(controller.start()),
            case .send(let m3) = try controller.receive(m2)
        else {
            Issue.record("pair-verify did not reach M3")
            return
        }
        var sealed = try #require(m3[.encryptedData])
        sealed[sealed.count - 1] ^= 0x80
        guard
            case .replyAndClose(let reply, let error) = accessory.receive(
                TLV8([.init(.state, [3]), .init(.encryptedData, sealed)])
            )
        else {
            Issue.record("a tampered M3 was accepted")
            return
        }
        #expect(error == .authentication)
        #expect(reply[.state] == [4] && reply[.error] == [2])
    }
}
