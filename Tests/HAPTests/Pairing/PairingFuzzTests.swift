import Crypto
import HAP
import TestSupport
import Testing

/// Random and mutated request bodies fed to every pairing state machine: errors are fine, traps are not.
@Suite struct PairingFuzzTests {
    /// Feeds `count` random or mutated bodies, each to a fresh copy of `machine`, and counts the ones that decoded.
    static func fuzz(
        count: Int,
        templates: [[UInt8]],
        random: inout SplitMix64,
        feed: (TLV8) -> Void
    ) -> Int {
        var decoded = 0
        for round in 0..<count {
            let input: [UInt8]
            if round % 4 == 0 || templates.isEmpty {
                input = random.bytes(Int.random(in: 0...64, using: &random))
            } else {
                let template = templates[Int.random(in: 0..<templates.count, using: &random)]
                input = mutate(template, using: &random)
            }
            guard let message = try? TLV8(decoding: input) else { continue }
            decoded += 1
            feed(message)
        }
        return decoded
    }

    @Test("40,000 bodies to the accessory's pair-setup machine in each state")
    func pairSetupAccessorySurvivesGarbage() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        let identity = PairingFixtures.accessoryIdentity()
        let fresh = PairSetupAccessory(
            identity: identity,
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        var afterM1 = fresh
        let m1 = controller.start()
        let m2 = afterM1.receive(m1).reply
        guard case .send(let m3) = try controller.receive(m2) else { throw PairingFailure.procedureFinished }
        var afterM3 = afterM1
        let m4 = afterM3.receive(m3).reply
        guard case .send(let m5) = try controller.receive(m4) else { throw PairingFailure.procedureFinished }

        let templates = [m1.encoded(), m3.encoded(), m5.encoded()]
        var replies = 0
        // A mutated M3 that keeps a 384-byte key costs one SRP computation, so that state gets fewer rounds.
        for (machine, rounds) in [(fresh, 20_000), (afterM1, 2_000), (afterM3, 18_000)] {
            replies += Self.fuzz(count: rounds, templates: templates, random: &random) { message in
                var copy = machine
                let step = copy.receive(message)
                #expect(step.reply[.state] != nil, "seed \(seed)")
            }
        }
        #expect(replies > 1_000, "seed \(seed)")
    }

    @Test("30,000 bodies to the accessory's pair-verify machine")
    func pairVerifyAccessorySurvivesGarbage() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        let paired = try PairingFixtures.pairedPair()
        let fresh = PairVerifyAccessory(identity: paired.accessory, pairings: paired.table)
        var controller = PairVerifyController(identity: paired.controller, accessory: paired.record)
        var afterM1 = fresh
        let m1 = controller.start()
        guard case .reply(let m2) = afterM1.receive(m1), case .send(let m3) = try controller.receive(m2) else {
            throw PairingFailure.procedureFinished
        }
        var forged = 0
        for machine in [fresh, afterM1] {
            _ = Self.fuzz(count: 15_000, templates: [m1.encoded(), m3.encoded()], random: &random) { message in
                var copy = machine
                if case .replyAndEncrypt = copy.receive(message), message[.encryptedData] != m3[.encryptedData] {
                    forged += 1
                }
            }
        }
        // Only the untouched M3 may establish a session; a changed one that still verified would be a forgery.
        #expect(forged == 0, "seed \(seed)")
    }

    @Test("30,000 bodies to the controller machines and the pairings handler")
    func controllerMachinesSurviveGarbage() throws {
        let seed = SplitMix64.testSeed()
        var random = SplitMix64(seed: seed)
        let paired = try PairingFixtures.pairedPair()
        var accessory = PairVerifyAccessory(identity: paired.accessory, pairings: paired.table)
        let verifier = PairVerifyController(identity: paired.controller, accessory: paired.record)
        guard case .reply(let m2) = accessory.receive(verifier.start()) else { throw PairingFailure.procedureFinished }
        _ = Self.fuzz(count: 10_000, templates: [m2.encoded()], random: &random) { message in
            var copy = verifier
            _ = try? copy.receive(message)
        }
        let setup = PairSetupController(setupCode: PairingFixtures.setupCode, identity: paired.controller)
        let errorReply = TLV8([.init(.state, [2]), .init(.error, [6])]).encoded()
        _ = Self.fuzz(count: 10_000, templates: [errorReply, [0x06, 0x01, 0x04, 0x04, 0x01, 0x00]], random: &random) {
            message in
            var copy = setup
            _ = try? copy.receive(message)
        }
        let admin = paired.controller.pairing(isAdmin: true)
        let requests = [
            PairingsRequest.list().encoded(),
            PairingsRequest.add(identifier: Array("x".utf8), publicKey: .init(repeating: 5, count: 32), isAdmin: true)
                .encoded(),
            PairingsRequest.remove(identifier: admin.identifier).encoded(),
        ]
        _ = Self.fuzz(count: 10_000, templates: requests, random: &random) { message in
            var store = paired.table
            let outcome = PairingsManagement.handle(message, from: admin.identifier, store: &store)
            #expect(outcome.reply[.state] == [2], "seed \(seed)")
            #expect(store.pairings.isEmpty || store.hasAdmin, "seed \(seed)")
        }
    }
}
